from concurrent.futures import ThreadPoolExecutor

import pytest

from benchmark.records import append_jsonl, atomic_write_text


def test_concurrent_writers_of_one_path_all_succeed(tmp_path):
    path = tmp_path / "sub" / "out.txt"
    texts = [f"writer {i}\n" * 1000 for i in range(16)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda t: atomic_write_text(path, t), texts))
    assert path.read_text() in texts
    assert [p.name for p in path.parent.iterdir()] == ["out.txt"]


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.txt"
    atomic_write_text(path, "old")
    try:
        atomic_write_text(path, "\ud800")  # a lone surrogate cannot be encoded
    except UnicodeEncodeError:
        pass
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_written_files_get_the_mode_open_gives(tmp_path):
    written = atomic_write_text(tmp_path / "run.json", "{}")
    opened = tmp_path / "results.jsonl"
    opened.write_text("")
    assert written.stat().st_mode & 0o777 == opened.stat().st_mode & 0o777


def test_append_jsonl_ends_a_torn_line_before_its_record(tmp_path):
    path = tmp_path / "results.jsonl"
    append_jsonl(path, '{"n": 1}')
    with open(path, "a") as f:
        f.write('{"n": 2, "cut')  # a kill mid-line
    append_jsonl(path, '{"n": 3}')
    assert path.read_text().splitlines() == ['{"n": 1}', '{"n": 2, "cut', '{"n": 3}']


def test_append_jsonl_refuses_a_record_of_several_lines(tmp_path):
    with pytest.raises(ValueError, match="single line"):
        append_jsonl(tmp_path / "x.jsonl", '{"a":\n1}')
    assert not (tmp_path / "x.jsonl").exists()
