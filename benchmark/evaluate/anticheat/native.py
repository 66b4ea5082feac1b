"""Static rules over the native text a candidate compiles (extracted by native_sources.py): C, C++
and CUDA sources, PTX, and the build flags. Native code is bound by neither Python's audit hooks nor
the Python rules (static.py), so what it could do instead of computing is refused here by name: run
Python, skip torch's dispatcher, load libraries, make system calls, read process memory, map
executable memory, handle signals, start processes or threads, read clocks, open files, read the
environment, change process-wide CUDA state.

Each text is normalised as the compiler would see it: lines spliced, comments dropped, `%:` read as
`#`, adjacent string literals joined and their escapes decoded, and `#define` macros (object- and
function-like, with `#`/`##`) expanded, including the `-D` macros of the build's flags. The rules
then match, per flag:
- names that only these capabilities use, anywhere in the code (`dlsym`, `process_vm_readv`, `Py*_`);
- common words only where the C library's function is called (`write(`, `time(`), not members
  (`s.write(`) or another namespace's (`my::write(`);
- qualified forms (`py::exec`, `.attr(`, `std::thread`, `at::native::`), with pybind11 and std
  namespace aliases and `using namespace` resolved;
- headers whose only use is these capabilities (`dlfcn.h`, `sys/mman.h`, `Python.h`, `thread`, ...);
- string-literal contents, since a name handed to `dlsym` or an assembler label is a string: a
  literal that is one forbidden name, Python C-API or frame-walking names, paths under `/proc` and
  other absolute paths, host assembly (`syscall`, `rdtsc`, `cpuid`) and device clock registers.
PTX in device code (`ld.global.nc`, `mma.sync`, `cp.async`, `ldmatrix`, `shfl`) matches none of it.

Where a native text is not fully known (native_sources.Extraction.conservative), every string
constant of the candidate is judged as C text too, and every identifier it spells against the names."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from benchmark.evaluate.anticheat.findings import Finding
from benchmark.evaluate.anticheat.native_sources import Extraction, NativeFlags, Text, extract


@dataclass(frozen=True)
class Rule:
    """One flag's rule: distinctive `names`, C library `calls` by common words, regex `patterns` over
    the code, `headers` (exact or with a trailing `/` as a folder), regexes over string `contents`."""

    flag: str
    names: frozenset[str] = frozenset()
    calls: frozenset[str] = frozenset()
    patterns: tuple[str, ...] = ()
    headers: frozenset[str] = frozenset()
    contents: tuple[str, ...] = ()


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


RULES: tuple[Rule, ...] = (
    Rule(
        "native_python_api",
        names=_words("PyObject PyThreadState PyFrameObject PyCodeObject PyInterpreterState PyTypeObject"),
        patterns=(
            r"\b_?Py[A-Z][A-Za-z0-9]*_\w+",  # the CPython C API: PyRun_String, PyEval_GetFrame, ...
            r"\bPy_[A-Za-z]\w*",
            r"\bpy::(?:exec|eval|eval_file|globals|getattr|setattr|hasattr|delattr|cast|reinterpret_borrow"
            r"|reinterpret_steal|module_?::import|import|scoped_interpreter|initialize_interpreter"
            r"|finalize_interpreter|gil_scoped_acquire|builtins)\b",
            r"(?<!py::)\bmodule_?::import\b",  # after `using namespace pybind11`
            r"(?:\.|->)\s*attr\s*\(",
            r"\bPYBIND11_EMBEDDED_MODULE\b",
            r"\bTHP[A-Z]\w*",  # torch's own Python-object wrappers
            r"\b\w*Py(?:Object|Interpreter|Frame|ThreadState|GIL)\w*",  # c10::SafePyObject, ...
        ),
        headers=frozenset(
            {
                "python.h",
                "frameobject.h",
                "pythonrun.h",
                "ceval.h",
                "pystate.h",
                "pyframe.h",
                "cpython/",
                "internal/",
                "pybind11/eval.h",
                "pybind11/embed.h",
            }
        ),
        contents=(
            r"\b_?Py[A-Z][A-Za-z0-9]*_[A-Za-z]\w*",
            r"\b(?:f_back|f_globals|f_locals|f_code|f_builtins|f_lasti|tb_frame|tb_next|gi_frame|cr_frame"
            r"|__globals__|__builtins__|__dict__|__code__|__closure__|__subclasses__|__import__|_getframe"
            r"|settrace|setprofile|get_referrers|get_referents|get_objects)\b",
            r"^(?:sys|inspect|gc|ctypes|builtins|importlib|__main__|traceback|_thread|threading"
            r"|subprocess|marshal|pickle|types|code)$",
        ),
    ),
    Rule(
        "native_torch_internals",
        names=_words(
            "ExcludeDispatchKeyGuard IncludeDispatchKeyGuard ForceDispatchKeyGuard tls_set_dispatch_key_excluded "
            "tls_set_dispatch_key_included tls_local_dispatch_key_set _force_tls_local_dispatch_key_set "
            "TorchDispatchModeTLS PythonDispatcherTLS PythonTorchFunctionTLS DisableTorchDispatch "
            "AutoDispatchBelowAutograd AutoDispatchBelowADInplaceOrView AutoDispatchSkipFunctionalize "
            "findSchemaOrThrow findSchema callBoxed redispatchBoxed setCurrentCUDAStream set_num_threads "
            "set_num_interop_threads manual_seed getDefaultCPUGenerator getDefaultCUDAGenerator emptyCache "
            "setMemoryFraction setAllocatorSettings recordHistory attachOutOfMemoryObserver SetAllocator "
            "omp_set_num_threads omp_set_dynamic mkl_set_num_threads"
        ),
        patterns=(
            # ATen kernels called directly, below the dispatcher the op census watches
            r"\bat::(?:cpu|meta|redispatch|compositeexplicitautograd|compositeexplicitautogradnonfunctional"
            r"|compositeimplicitautograd)::",
            r"\bat::native::(?!(?:gpu_kernel\w*|cpu_kernel\w*|cpu_serial_kernel\w*)\b)",
            r"\bat::cuda::(?!(?:warp_size|device_synchronize|stream_synchronize|current_stream|current_device"
            r"|is_available|device_count|set_device)\b)[a-z][a-z0-9_]*\s*\(",
            r"\bat::_ops::\w+::redispatch\b",
            r"(?:\.|->)\s*redispatch\s*\(",
            r"\bc10::impl::",
            r"\bc10::Dispatcher\b|\bDispatcher::singleton\b",
            r"\bDispatchKey::(?:Python\w*|PreDispatch|Functionalize)\b",
            r"\bglobalContext\s*\(\s*\)\s*(?:\.|->)\s*(?:set|alert|release)\w*",
            r"\btorch::jit::",
            # kernels registered into torch's own operators (the reference would run them) or for all ops
            r"\bTORCH_LIBRARY(?:_IMPL|_FRAGMENT)?\s*\(\s*(?:aten|prim|_|c10d|quantized|sparse|cuda|torch|inductor)\b",
            r"(?:\.|->)\s*fallback\s*\(",
            r"\b(?:RegisterOperators|registerFallback)\b",
        ),
    ),
    Rule(
        "native_dynamic_loading",
        names=_words(
            "dlopen dlmopen dlsym dlvsym dladdr dladdr1 dlinfo dl_iterate_phdr __libc_dlopen_mode __libc_dlsym "
            "LoadLibraryA LoadLibraryW LoadLibraryExA LoadLibraryExW GetProcAddress"
        ),
        # a CUDA driver function fetched by a name that is not a literal the rules can read
        patterns=(
            r"\bRTLD_\w+",
            r"\b_dl_\w+",
            r"\b(?:cudaGetDriverEntryPoint|cuGetProcAddress)\w*\s*\(\s*(?!\"\")",
        ),
        headers=frozenset({"dlfcn.h", "link.h", "elf.h", "gnu/lib-names.h"}),
    ),
    Rule(
        "native_syscall",
        names=_words(
            "syscall __syscall _syscall ioctl prctl arch_prctl seccomp personality iopl ioperm modify_ldt bpf "
            "userfaultfd io_uring_setup io_uring_enter io_uring_register __cpuid __cpuid_count __get_cpuid"
        ),
        patterns=(r"\bSYS_[a-z_0-9]+\b", r"\b__NR_\w+"),
        headers=frozenset(
            {
                "sys/syscall.h",
                "syscall.h",
                "asm/",
                "linux/",
                "sys/ioctl.h",
                "sys/prctl.h",
                "seccomp.h",
                "sys/io.h",
                "cpuid.h",
                "sys/user.h",
            }
        ),
        contents=(
            r"\b(?:syscall|sysenter|sysexit|sysret|cpuid|rdmsr|wrmsr|vmcall|vmmcall|int3)\b",
            r"\bint\s*\$?(?:0x80|128)\b",
            r"\bsvc\s+#?0\b",
            r"%%?(?:[re](?:ax|bx|cx|dx|si|di|sp|bp)|rip|[xyz]mm\d+)\b",  # x86 registers: host assembly
        ),
    ),
    Rule(
        "native_process_memory",
        names=_words(
            "process_vm_readv process_vm_writev ptrace pidfd_open pidfd_getfd pidfd_send_signal kcmp backtrace "
            "backtrace_symbols backtrace_symbols_fd getcontext setcontext swapcontext makecontext "
            "__builtin_frame_address __builtin_return_address __builtin_extract_return_addr shmget shmat shmdt "
            "shm_open shm_unlink"
        ),
        patterns=(r"\bPTRACE_\w+", r"\bcudaIpc\w+", r"\bcuIpc\w+", r"\b_Unwind_\w+", r"\bunw_\w+"),
        headers=frozenset(
            {
                "sys/ptrace.h",
                "sys/uio.h",
                "execinfo.h",
                "ucontext.h",
                "sys/ucontext.h",
                "libunwind.h",
                "unwind.h",
                "sys/shm.h",
                "sys/ipc.h",
                "sys/pidfd.h",
            }
        ),
        contents=(r"/proc(?:/|\b)", r"/dev/(?:k?mem|shm)\b"),
    ),
    Rule(
        "native_memory_protection",
        names=_words(
            "mprotect pkey_mprotect pkey_alloc pkey_free pkey_set mmap mmap64 munmap mremap madvise mlock "
            "mlockall munlock memfd_create remap_file_pages __clear_cache __builtin___clear_cache"
        ),
        patterns=(
            r"\bPROT_(?:READ|WRITE|EXEC|NONE)\b",
            r"\bMAP_(?:ANON|ANONYMOUS|FIXED\w*|SHARED\w*|PRIVATE|POPULATE|NORESERVE|HUGETLB|STACK|GROWSDOWN|LOCKED)\b",
        ),
        headers=frozenset({"sys/mman.h"}),
    ),
    Rule(
        "native_signal",
        names=_words(
            "sigaction sigprocmask pthread_sigmask sigaltstack signalfd sigsetjmp siglongjmp tgkill tkill "
            "pthread_kill killpg setitimer getitimer timer_create timer_settime timer_delete sigqueue sigemptyset "
            "sigfillset sigaddset sighandler_t __sighandler_t sigwait sigwaitinfo sigtimedwait sigsuspend ualarm "
            "SIG_IGN SIG_DFL SIGSEGV SIGBUS SIGILL SIGFPE SIGABRT SIGALRM SIGVTALRM SIGPROF SIGUSR1 SIGUSR2 SIGTERM "
            "SIGINT SIGKILL SIGSTOP SIGCONT SIGCHLD SIGTRAP SIGSYS SIGPIPE SIGHUP SIGQUIT SIGXCPU SIGXFSZ SIGRTMIN "
            "SIGRTMAX SA_SIGINFO SA_RESTART SA_ONSTACK SA_NODEFER SA_RESETHAND"
        ),
        calls=_words("signal raise kill alarm"),
        headers=frozenset({"signal.h", "csignal", "sys/signal.h", "sys/signalfd.h"}),
    ),
    Rule(
        "native_process",
        names=_words(
            "fork vfork clone3 execl execlp execle execv execvp execvpe execve execveat fexecve popen pclose "
            "posix_spawn posix_spawnp system unshare setns setsid setpgid waitpid wait3 wait4 waitid getppid "
            "setpriority sched_setaffinity sched_setscheduler setrlimit prlimit"
        ),
        calls=_words("clone daemon"),  # not `wait`: cooperative groups' wait(block) is honest
        headers=frozenset({"spawn.h", "sys/wait.h"}),
    ),
    Rule(
        "native_thread",
        names=_words("pthread_create pthread_detach thrd_create _beginthread _beginthreadex CreateThread"),
        patterns=(
            r"\bstd::(?:thread(?!::hardware_concurrency)|jthread|async)\b",
            r"\bboost::thread\b",
            r"\bat::(?:launch|intraop_launch\w*)\b",
            r"\b\w*ThreadPool\b",
            r"(?:\.|->)\s*detach\s*\(\s*\)",
        ),
        # not <thread>: std::thread::hardware_concurrency() is honest, and a thread needs a name above
        headers=frozenset({"pthread.h", "future", "threads.h"}),
    ),
    Rule(
        "native_timer",
        names=_words(
            "clock_gettime clock_getres gettimeofday timespec_get ftime getrusage clock64 __rdtsc __rdtscp _rdtsc "
            "__builtin_ia32_rdtsc __builtin_ia32_rdtscp __builtin_readcyclecounter __builtin_readsteadycounter "
            "__builtin_ia32_rdpmc cudaEventElapsedTime cuEventElapsedTime high_resolution_clock steady_clock "
            "system_clock perf_event_open CLOCK_MONOTONIC CLOCK_MONOTONIC_RAW CLOCK_REALTIME CLOCK_BOOTTIME "
            "CLOCK_PROCESS_CPUTIME_ID CLOCK_THREAD_CPUTIME_ID"
        ),
        calls=_words("time clock times"),
        patterns=(r"\bstd::chrono\b", r"\bchrono::", r"\b\w*globaltimer\w*"),
        headers=frozenset(
            {"chrono", "ctime", "time.h", "sys/time.h", "sys/times.h", "sys/resource.h", "sys/timeb.h"}
        ),
        # device clocks (PTX special registers) and host cycle counters, in inline assembly
        contents=(
            r"%%?(?:globaltimer(?:_lo|_hi)?|clock(?:64|_hi)?)\b",
            r"\b(?:rdtscp?|rdpmc|cntvct_el0|cntpct_el0|pmccntr_el0|rdtime|rdcycle)\b",
        ),
    ),
    Rule(
        "native_file_access",
        names=_words(
            "fopen fopen64 freopen fdopen fread fwrite fgets fgetc getc fscanf fseek fseeko ftell ftello rewind "
            "fileno open64 openat openat2 creat readlink readlinkat opendir fdopendir readdir scandir nftw ftw "
            "unlink unlinkat rmdir mkdir mkdirat mkfifo mknod chdir fchdir chroot chmod fchmod chown fchown "
            "ftruncate symlink symlinkat linkat renameat realpath getcwd dup2 dup3 pipe2 sendfile splice vmsplice "
            "mkstemp mkostemp tmpfile tmpnam mkdtemp statx fstat lstat fstatat inotify_init inotify_add_watch "
            "fanotify_init socket socketpair getaddrinfo gethostbyname stdin ifstream ofstream fstream filebuf "
            "basic_ifstream basic_ofstream basic_fstream scanf gets getchar"
        ),
        calls=_words("open read write pipe dup"),
        patterns=(r"\bstd::(?:filesystem|cin|wcin)\b", r"\b__fs::filesystem\b"),
        headers=frozenset(
            {
                "fstream",
                "filesystem",
                "experimental/filesystem",
                "fcntl.h",
                "sys/stat.h",
                "dirent.h",
                "sys/socket.h",
                "netinet/",
                "arpa/",
                "sys/un.h",
                "netdb.h",
                "sys/inotify.h",
                "sys/sendfile.h",
                "sys/fanotify.h",
                "ftw.h",
                "sys/file.h",
            }
        ),
        contents=(
            r"^\s*/(?:proc|dev|sys|etc|tmp|home|root|usr|var|run|opt|mnt|work|lib|lib64|bin|sbin|boot|srv"
            r"|media|data|scratch)(?:/|$)",
            r"(?:^|/)\.\.(?:/|$)",
        ),
    ),
    Rule(
        "native_environment",
        names=_words(
            "getenv secure_getenv __secure_getenv setenv putenv unsetenv clearenv environ __environ _environ "
            "getauxval confstr"
        ),
        headers=frozenset({"sys/auxv.h"}),
    ),
    Rule(
        "native_cuda_state",
        names=_words(
            "cudaDeviceReset cudaThreadExit cudaDeviceSetLimit cudaThreadSetLimit cudaCtxResetPersistingL2Cache "
            "cudaStreamSetAttribute cuStreamSetAttribute cudaSetDeviceFlags cudaDeviceSetCacheConfig "
            "cudaThreadSetCacheConfig cudaDeviceSetSharedMemConfig cudaDeviceSetMemPool cudaMemPoolSetAttribute "
            "cudaMemPoolTrimTo cudaDeviceGraphMemTrim cudaDeviceSetGraphMemAttribute cudaSetValidDevices "
            "cudaProfilerStart cudaProfilerStop cudaProfilerInitialize cuProfilerStart cuProfilerStop "
            "cuProfilerInitialize cuCtxSetLimit cuCtxSetCacheConfig cuCtxSetSharedMemConfig "
            "cuCtxResetPersistingL2Cache cuCtxSetCurrent cuCtxSetFlags cuDeviceSetMemPool cuMemPoolSetAttribute "
            "cuMemPoolTrimTo accessPolicyWindow cudaLaunchAttributeAccessPolicyWindow "
            "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW cudaStreamAttributeAccessPolicyWindow "
            "CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW cudaAccessPropertyPersisting CU_ACCESS_PROPERTY_PERSISTING "
            "cudaLimitPersistingL2CacheSize CU_LIMIT_PERSISTING_L2_CACHE_SIZE persistingL2CacheMaxSize"
        ),
        patterns=(
            r"\bcuCtx(?:Destroy|Create|PushCurrent|PopCurrent|Detach|Attach)\w*",
            r"\bcuDevicePrimaryCtx(?:Reset|Release|SetFlags)\w*",
            r"\bnvml[A-Z]\w*",
            r"\bNVML_\w+",
            r"\bcupti[A-Z]\w*",
            r"\bCUPTI_\w+",
        ),
        headers=frozenset({"cuda_profiler_api.h", "cudaprofiler.h", "cupti.h", "cupti_", "nvml.h"}),
    ),
    Rule(
        "native_obfuscation",
        patterns=(
            r"##",  # token pasting assembles names the rules cannot see
            r"\\",  # a backslash in code: universal character names in identifiers
            r"\?\?[=/'()!<>-]",  # trigraphs
            r"__attribute__\s*\(\(\s*[^;{]*?\b(?:constructor|destructor|ifunc|weakref|alias|section|init_priority)\b",
            r"\bgnu::(?:constructor|destructor|ifunc|weakref|alias|section)\b",
            r"\)\s*(?:__asm__|__asm|asm)\s*\(\s*\"\"\s*\)\s*[;{=,]",  # an assembler label renames a symbol
            r"#\s*pragma\s+(?:weak|redefine_extname)\b",
        ),
        contents=(
            r"^\.(?:init_array|fini_array|ctors|dtors|preinit_array)\b",
            r"(?:^|[;\n])\s*\.(?:set|equ|equiv|symver|weak|weakref|globl|alias)\b",  # assembler symbol aliases
        ),
    ),
)
NAMED = {name: rule.flag for rule in RULES for name in rule.names}
CALLED = {name: rule.flag for rule in RULES for name in rule.calls}
HOST_ASM = re.compile(
    r"\b(?:asm|__asm__|__asm)\b"
)  # in a CPU-only text, any inline assembly is host assembly
MAX_JUDGED = 512_000  # characters: a longer native text is not judged but reported as unreadable


def _either(patterns: tuple[str, ...]) -> re.Pattern:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


_IDENT = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]*")
_WORDS = "|".join(sorted(CALLED))
_CALL = re.compile(rf"(?<![\w$])({_WORDS})\s*\(")
_CALL_REFERENCE = re.compile(
    rf"(?:(?<![\w)\]])&\s*|(?<![\w:])::|\bstd::|\busing\s+(?:::|std::)?)({_WORDS})(?![\w$])"
)
_PATTERNS = [(rule.flag, _either(rule.patterns)) for rule in RULES if rule.patterns]
_CONTENTS = [(rule.flag, _either(rule.contents)) for rule in RULES if rule.contents]

# The C lexer: comments, raw and plain string literals, char literals, pp-numbers (whose digit
# separators are not char literals), identifiers, and punctuation with `%:` digraphs.
_LEX = re.compile(
    r"""
    (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<raw>(?:u8|[uUL])?R"(?P<delim>[^()\\\s"]{0,16})\((?P<rawbody>.*?)(?:\)(?P=delim)"|\Z))
  | (?P<str>(?:u8|[uUL])?"(?P<strbody>(?:[^"\\\n]|\\.)*)(?:"|(?=\n)|\Z))
  | (?P<chr>(?:u8|[uUL])?'(?P<chrbody>(?:[^'\\\n]|\\.){1,10})')
  | (?P<num>\.?\d(?:[eEpP][+-]|[\w'.])*)
  | (?P<ident>[A-Za-z_$\x80-\U0010ffff][\w$\x80-\U0010ffff]*)
  | (?P<newline>\n)
  | (?P<space>[ \t\r\f\v]+)
  | (?P<punct>%:%:|%:|\#\#|::|->|[^\s\w])
    """,
    re.S | re.X,
)
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]+|u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|[0-7]{1,3}|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
MAX_EXPANSION_ROUNDS = 8


def _unescape(body: str) -> str:
    def one(m: re.Match) -> str:
        e = m.group(1)
        if e[0] in "xuU":
            try:
                return chr(int(e[1:], 16))
            except (ValueError, OverflowError):
                return ""
        if e[0] in "01234567":
            return chr(int(e, 8))
        return _SIMPLE_ESCAPES.get(e, e)

    return _ESCAPE.sub(one, body)


Token = tuple[str, str]  # (kind, text); a string literal's text is its decoded content


def _tokens(text: str) -> list[Token]:
    out: list[Token] = []
    for m in _LEX.finditer(text):
        kind = m.lastgroup
        if kind in ("delim", "rawbody", "strbody", "chrbody"):
            kind = next(k for k in ("raw", "str", "chr") if m.group(k) is not None)
        if kind == "comment":
            out.append(("space", " "))
        elif kind == "raw":
            out.append(("str", m.group("rawbody")))
        elif kind == "str":
            out.append(("str", _unescape(m.group("strbody"))))
        elif kind == "chr":
            out.append(("chr", m.group("chrbody")))
        elif kind == "punct":
            out.append(("punct", {"%:": "#", "%:%:": "##"}.get(m.group(), m.group())))
        else:
            out.append((kind, m.group()))
    return out


def _lines(tokens: list[Token]) -> list[list[Token]]:
    lines: list[list[Token]] = [[]]
    for t in tokens:
        lines[-1].append(t)
        if t[0] == "newline":
            lines.append([])
    return lines


def _solid(tokens: list[Token]) -> list[Token]:
    return [t for t in tokens if t[0] not in ("space", "newline")]


@dataclass
class _Macro:
    params: list[str] | None
    body: list[Token]


def _directive(line: list[Token]) -> tuple[str, list[Token]] | None:
    solid = _solid(line)
    if len(solid) >= 2 and solid[0] == ("punct", "#") and solid[1][0] == "ident":
        rest = line[line.index(solid[1]) + 1 :]
        return solid[1][1], rest
    return None


def _define(rest: list[Token]) -> tuple[str, _Macro] | None:
    i = 0
    while i < len(rest) and rest[i][0] == "space":
        i += 1
    if i >= len(rest) or rest[i][0] != "ident":
        return None
    name = rest[i][1]
    i += 1
    params = None
    if i < len(rest) and rest[i] == ("punct", "("):  # no space before '(': function-like
        params, j = [], i + 1
        while j < len(rest) and rest[j] != ("punct", ")"):
            if rest[j][0] == "ident" or rest[j] == ("punct", "."):
                if rest[j][0] == "ident":
                    params.append(rest[j][1])
                elif "..." not in params:
                    params.append("...")
            j += 1
        i = j + 1
    body = [t for t in rest[i:] if t[0] != "newline"]
    while body and body[0][0] == "space":
        body.pop(0)
    return name, _Macro(params, body)


def _arguments(tokens: list[Token], start: int) -> tuple[list[list[Token]], int] | None:
    """The arguments of a macro call whose '(' is at `start`, and the index after its ')'."""
    depth, args, current = 0, [], []
    for i in range(start, len(tokens)):
        t = tokens[i]
        if t == ("punct", "("):
            depth += 1
            if depth == 1:
                continue
        elif t == ("punct", ")"):
            depth -= 1
            if depth == 0:
                args.append(current)
                return args, i + 1
        elif t == ("punct", ",") and depth == 1:
            args.append(current)
            current = []
            continue
        current.append(t)
    return None


def _paste(tokens: list[Token]) -> list[Token]:
    """Apply `##`: the neighbouring tokens become one (relexed)."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        if tokens[i] == ("punct", "##"):
            while out and out[-1][0] == "space":
                out.pop()
            j = i + 1
            while j < len(tokens) and tokens[j][0] == "space":
                j += 1
            left = out.pop()[1] if out else ""
            right = tokens[j][1] if j < len(tokens) else ""
            out.extend(_tokens(left + right) or [("space", " ")])
            i = j + 1
            continue
        out.append(tokens[i])
        i += 1
    return out


def _substitute(macro: _Macro, args: list[list[Token]]) -> list[Token]:
    params = macro.params or []
    values: dict[str, list[Token]] = {}
    for k, p in enumerate(params):
        if p == "...":
            rest = args[k:]
            values["__VA_ARGS__"] = [
                t for n, a in enumerate(rest) for t in ([("punct", ",")] if n else []) + a
            ]
        elif k < len(args):
            values[p] = args[k]
    out: list[Token] = []
    body = macro.body
    i = 0
    while i < len(body):
        t = body[i]
        if t == ("punct", "#") and i + 1 < len(body):
            j = i + 1
            while j < len(body) and body[j][0] == "space":
                j += 1
            if j < len(body) and body[j][0] == "ident" and body[j][1] in values:
                out.append(("str", "".join(x[1] for x in values[body[j][1]]).strip()))
                i = j + 1
                continue
        if t[0] == "ident" and t[1] in values:
            out.extend(values[t[1]])
        else:
            out.append(t)
        i += 1
    return _paste(out)


def _expand(tokens: list[Token], macros: dict[str, _Macro]) -> list[Token]:
    """Expand macros in code (never in directives), a bounded number of rounds."""
    limit = 4 * len(tokens) + 20_000
    for _ in range(MAX_EXPANSION_ROUNDS):
        out: list[Token] = []
        changed = False
        i = 0
        while i < len(tokens):
            if len(out) > limit:  # a macro bomb: the rest stays as written
                out.extend(tokens[i:])
                break
            kind, text = tokens[i]
            macro = macros.get(text) if kind == "ident" else None
            if macro is not None and macro.params is None:
                out.extend(_paste(macro.body))
                changed = True
                i += 1
                continue
            if macro is not None:
                j = i + 1
                while j < len(tokens) and tokens[j][0] in ("space", "newline"):
                    j += 1
                if j < len(tokens) and tokens[j] == ("punct", "("):
                    found = _arguments(tokens, j)
                    if found is not None:
                        args, end = found
                        out.extend(_substitute(macro, args))
                        changed = True
                        i = end
                        continue
            out.append(tokens[i])
            i += 1
        tokens = out
        if not changed or len(tokens) > limit:
            break
    return tokens


@dataclass
class Normalised:
    """A C text as the rules read it: code with string contents emptied, the string contents, the
    headers it includes (with computed includes noted) and the files it embeds."""

    code: str
    strings: list[str]
    headers: list[str]
    computed_include: bool
    embeds: list[str]


_NS_ALIAS = re.compile(r"\bnamespace\s+(\w+)\s*=\s*(?:::)?(pybind11|py|std)\s*;")
_USING_NS = re.compile(r"\busing\s+namespace\s+(?:::)?(pybind11|py|std)\s*;")
# Where std's names stand bare after `using namespace std`: only forms that make or use the std entity
# (`thread t(f)`, `thread(f)`, `vector<thread>`, `async(...)`, `chrono::`), so a variable named
# `thread` stays a variable.
_STD_BARE = re.compile(
    r"(?<![\w:.>])(?=(?:thread|jthread)\s+\w+\s*[({]|(?:thread|jthread|async)\s*\(|(?:chrono|filesystem)::"
    r"|(?:thread|jthread)\s*>|cin\s*>>)"
)
_PY_BARE = re.compile(
    r"(?<![\w:.>])(exec|eval|eval_file|globals|getattr|setattr|hasattr|delattr|reinterpret_borrow"
    r"|reinterpret_steal|cast)\s*[(<]"
)


def normalise(text: str, defines: dict[str, _Macro] | None = None) -> Normalised:
    """Read a C text the way its compiler would before the rules match it (see the module doc)."""
    text = text.replace("\\\r\n", "").replace("\\\n", "")
    macros: dict[str, _Macro] = dict(defines or {})
    code_tokens: list[Token] = []
    directive_tokens: list[Token] = []
    headers: list[str] = []
    includes: list[list[Token]] = []
    embeds: list[str] = []
    for line in _lines(_tokens(text)):
        found = _directive(line)
        if found is None:
            code_tokens.extend(line)
            continue
        directive_tokens.extend(line)
        name, rest = found
        if name == "define":
            defined = _define(rest)
            if defined is not None:
                macros[defined[0]] = defined[1]
        elif name == "undef":
            pass  # kept defined: an #undef must not hide a use the rules would have seen
        elif name in ("include", "include_next", "import"):
            includes.append(rest)
        elif name == "embed":  # C23/C++26: a file's bytes as data
            embeds.append("".join(t[1] for t in _solid(rest)))
    computed = False
    for rest in includes:
        solid = _solid(rest)
        if solid and solid[0][0] == "str":
            headers.append(solid[0][1])
        elif solid and solid[0] == ("punct", "<"):
            end = next((k for k, t in enumerate(solid) if t == ("punct", ">")), len(solid))
            headers.append("".join(t[1] for t in solid[1:end]))
        else:
            computed = True
            expanded = _solid(_expand(rest, macros))
            if expanded and expanded[0][0] == "str":
                headers.append(expanded[0][1])
            elif expanded and expanded[0] == ("punct", "<"):
                end = next((k for k, t in enumerate(expanded) if t == ("punct", ">")), len(expanded))
                headers.append("".join(t[1] for t in expanded[1:end]))
    directives, directive_strings = _view(directive_tokens)
    code, strings = _view(_expand(code_tokens, macros))
    for alias, target in set(_NS_ALIAS.findall(code)):
        code = re.sub(rf"(?<![\w:]){re.escape(alias)}::", "std::" if target == "std" else "py::", code)
    using = set(_USING_NS.findall(code))
    if "std" in using or re.search(r"\busing\s+std::(?:thread|jthread|async|chrono)\b", code):
        code = _STD_BARE.sub("std::", code)
    if using & {"pybind11", "py"}:
        code = _PY_BARE.sub(lambda m: "py::" + m.group(0), code)
    return Normalised(directives + "\n" + code, directive_strings + strings, headers, computed, embeds)


def _view(tokens: list[Token]) -> tuple[str, list[str]]:
    """The code of a token list with string literals emptied (`""`) and char literals too (`''`),
    no space around `::`, `.` and `->`, and `pybind11::` read as `py::`; and the contents of its
    string literals, adjacent ones joined."""
    parts: list[str] = []
    strings: list[str] = []
    open_string: list[str] | None = None
    for i, (kind, value) in enumerate(tokens):
        if kind == "str":
            if open_string is None:
                open_string = []
                parts.append('""')
            open_string.append(value)
            continue
        if kind in ("space", "newline"):
            neighbours = {tokens[i - 1][1] if i else "", tokens[i + 1][1] if i + 1 < len(tokens) else ""}
            if not neighbours & {"::", ".", "->"}:
                parts.append("\n" if kind == "newline" else " ")
            continue
        if open_string is not None:
            strings.append("".join(open_string))
            open_string = None
        parts.append("''" if kind == "chr" else value)
    if open_string is not None:
        strings.append("".join(open_string))
    return "".join(parts).replace("pybind11::", "py::"), strings


def _header_flag(header: str) -> tuple[str, str] | None:
    """(flag, why) for an included header or path, or None."""
    path = header.strip().lower()
    if path.startswith("/") or ".." in path.split("/"):
        return "native_file_access", f"includes a file by path ({header})"
    for rule in RULES:
        for h in rule.headers:
            if path == h or (h.endswith(("/", "_")) and path.startswith(h)):
                return rule.flag, f"#include <{header}>"
    return None


_EXPRESSION_WORDS = frozenset(
    "return case else throw co_return co_yield co_await sizeof alignof new delete not and or xor bitand "
    "bitor compl typeid do goto decltype noexcept defined".split()
)
_TYPE_BEFORE = re.compile(r"([A-Za-z_]\w*)(\s*[*&]+)?\s*$")
_PARAMETER = re.compile(
    r"\s*(?:(?:const|volatile|unsigned|signed|struct|class|typename)\s+)*[A-Za-z_][\w:]*(?:\s*<[^()]*>)?"
    r"[\s*&]+(?:const\s+)?[*&]*\s*[A-Za-z_]\w*\s*(?:\[[^\]]*\])?\s*(?:=.*)?"
)


def _declares(code: str, start: int, open_paren: int) -> bool:
    """Whether the name at `start` is declared there (`int write(int);`, `float* read(const float* p)`),
    not called: a type right before it, or a type and `*`/`&` with a `type name` parameter list."""
    found = _TYPE_BEFORE.search(code, max(0, start - 200), start)
    if found is None or found.group(1) in _EXPRESSION_WORDS:
        return False
    if not found.group(2):
        return True  # two names side by side are a declaration, never an expression
    depth, end = 0, open_paren
    for end in range(open_paren, min(len(code), open_paren + 2000)):
        depth += {"(": 1, ")": -1}.get(code[end], 0)
        if depth == 0:
            break
    parts = re.split(r",(?![^<]*>)", code[open_paren + 1 : end])
    return all(_PARAMETER.fullmatch(part) for part in parts)


def _call_sites(code: str):
    """(flag, word) for calls of the C library's function by a common word (not members, not another
    namespace's, not a declaration of the candidate's own), and for its address taken or named with
    `::`, `std::` or `using`. A call is flagged even where the candidate defines a function of that
    name, since an overload can resolve to the library's."""
    for m in _CALL.finditer(code):
        before = code[max(0, m.start() - 200) : m.start()].rstrip()
        if before.endswith((".", "->")):
            continue
        qualifier = re.search(r"(\w*)\s*::$", before)
        if qualifier and qualifier.group(1) not in ("", "std"):
            continue
        if _declares(code, m.start(), m.end() - 1):
            continue
        yield CALLED[m.group(1)], f"{m.group(1)}()"
    for m in _CALL_REFERENCE.finditer(code):
        yield CALLED[m.group(1)], m.group(1)


def _named(word: str) -> str | None:
    """The flag of a single name (an identifier, or a string naming a symbol), if it is forbidden."""
    if word in NAMED or word in CALLED:
        return NAMED.get(word) or CALLED[word]
    return next((flag for flag, p in _PATTERNS if p.fullmatch(word)), None)


def judge_text(
    text: str, *, host_only: bool = False, defines: dict[str, _Macro] | None = None
) -> list[tuple[str, str]]:
    """(flag, what) for every rule a C/C++/CUDA text trips; `host_only` for text compiled for the
    CPU alone (cpp_sources), where any inline assembly is host assembly."""
    if len(text) > MAX_JUDGED:
        return [("native_unresolved_source", f"a native text of {len(text)} characters (too large to judge)")]
    n = normalise(text, defines)
    found = [(NAMED[m.group()], m.group()) for m in _IDENT.finditer(n.code) if m.group() in NAMED]
    found += list(_call_sites(n.code))
    found += [(flag, m.group().strip()) for flag, p in _PATTERNS for m in p.finditer(n.code)]
    for s in n.strings:
        found += [(flag, f'"{_short(s)}"') for flag, p in _CONTENTS if p.search(s)]
        word = s.strip()
        if re.fullmatch(r"[A-Za-z_]\w*", word) and (flag := _named(word)) is not None:
            found.append((flag, f'"{word}"'))  # one name: a symbol looked up by name
    for header in n.headers:
        hit = _header_flag(header)
        if hit is not None:
            found.append(hit)
    if n.computed_include:
        found.append(("native_obfuscation", "#include of a macro"))
    found += [("native_file_access", f"#embed {what}") for what in n.embeds]
    if host_only and HOST_ASM.search(n.code):
        found.append(("native_syscall", "inline assembly in host code"))
    return list(dict.fromkeys(found))


def judge_asm(text: str) -> list[tuple[str, str]]:
    """(flag, what) for device assembly (PTX handed to Triton): clock registers and host instructions."""
    found = [(flag, m.group()) for flag, p in _CONTENTS for m in p.finditer(text)]
    return list(dict.fromkeys(found))


def _short(s: str, width: int = 60) -> str:
    s = " ".join(s.split())
    return s if len(s) <= width else s[: width - 3] + "..."


# Build flags: what may be passed to the compilers and the linker.
ALLOWED_LIBRARIES = re.compile(
    r"(?:cublas\w*|cudart\w*|cuda|cudadevrt|culibos|curand\w*|cufft\w*|cusparse\w*|cusolver\w*|cudnn\w*"
    r"|nvrtc\w*|nvToolsExt|nvtx\w*|npp\w*|gomp|omp|iomp5|m|stdc\+\+|pthread|c10|c10_cuda|torch|torch_cpu"
    r"|torch_cuda|torch_python)"
)
# Options that take their value as the next argument.
_TAKES_VALUE = {
    "-Xcompiler",
    "--compiler-options",
    "-Xptxas",
    "--ptxas-options",
    "-Xcudafe",
    "-Xfatbin",
    "-Xlinker",
    "--linker-options",
    "-Xnvlink",
    "--nvlink-options",
    "-Xarchive",
    "-Xassembler",
    "-Xpreprocessor",
    "-l",
    "--library",
    "-L",
    "--library-path",
    "-D",
    "--define-macro",
    "-include",
    "-imacros",
    "--pre-include",
    "-x",
    "-o",
    "--output-file",
    "-ccbin",
    "--compiler-bindir",
    "-I",
    "--include-path",
    "-isystem",
    "-iquote",
    "-idirafter",
    "--options-file",
    "-optf",
    "-odir",
    "--output-directory",
}
_FORBIDDEN_OPTION = re.compile(
    r"(?:-Xlinker|--linker-options|-Xnvlink|--nvlink-options|-Xarchive|-Xassembler|-Xpreprocessor|-W[lpa],"
    r"|-include|-imacros|--pre-include|-fplugin|-fpass-plugin|-specs|--specs|-B|-ccbin|--compiler-bindir"
    r"|-wrapper|--options-file|-optf|@|-o$|-o\S|--output-file|-odir|--output-directory|-save-temps"
    r"|--keep$|--keep-dir|-keep$|-keep-dir|-trigraphs|-Xclang|-mllvm|-fuse-ld|-T)"
)
_FORBIDDEN_PATH = re.compile(r"^/(?:proc|dev|sys|tmp)(?:/|$)|(?:^|/)\.\.(?:/|$)")
_BINARY = re.compile(r"\.(?:so(?:\.\d+)*|a|o|dylib|dll|lib|obj|cubin|fatbin|ptx)$")


def _atoms(items: list[str]) -> list[str]:
    out = []
    for item in items:
        out += [a.strip("'\"") for a in item.split()]
    return [a for a in out if a]


def _judge_atoms(atoms: list[str], macros: dict[str, _Macro], host: bool = False) -> list[tuple[str, str]]:
    """(flag, what) for compiler or linker arguments; -D macros are collected into `macros`."""
    found: list[tuple[str, str]] = []
    i = 0
    while i < len(atoms):
        atom = atoms[i]
        option, value = atom, None
        if atom in _TAKES_VALUE and i + 1 < len(atoms):
            value = atoms[i + 1]
            i += 1
        elif "=" in atom and atom.split("=", 1)[0] in _TAKES_VALUE:
            option, value = atom.split("=", 1)
        i += 1
        if option in ("-Xcompiler", "--compiler-options"):
            found += _judge_atoms(_atoms([(value or "").replace(",", " ")]), macros, host=True)
            continue
        if option in ("-Xptxas", "--ptxas-options", "-Xfatbin"):
            continue
        if option == "-Xcudafe":
            if value and re.search(r"include", value):
                found.append(("native_build_flags", f"{atom} {value}"))
            continue
        library = _library(option, value)
        if library is not None:
            if not ALLOWED_LIBRARIES.fullmatch(library):
                found.append(("native_build_flags", f"links library {library}"))
        elif option.startswith(("-D", "--define-macro")):
            definition = value if option in ("-D", "--define-macro") else option[2:]
            found += _judge_define(definition or "", macros)
        elif option.startswith(
            ("-I", "-isystem", "-iquote", "-idirafter", "-L", "--include-path", "--library-path")
        ):
            path = (
                value if value is not None else re.sub(r"^(?:-isystem|-iquote|-idirafter|-I|-L)", "", option)
            )
            if path and _FORBIDDEN_PATH.search(path):
                found.append(("native_build_flags", f"{option} {path}".strip()))
        elif option == "-x":
            if value not in ("c++", "cu", "cuda", "c"):
                found.append(("native_build_flags", f"-x {value}"))
        elif _FORBIDDEN_OPTION.match(option):
            found.append(("native_build_flags", f"{atom} {value or ''}".strip()))
        elif not option.startswith("-") and (_BINARY.search(option) or option.startswith("/")):
            found.append(("native_build_flags", f"links or reads a file by path ({option})"))
    return found


def _library(option: str, value: str | None) -> str | None:
    """The library a `-lNAME`, `-l NAME` or `--library=NAME` links, or None for other options."""
    if option in ("-l", "--library"):
        return value or ""
    if option.startswith("--library="):
        return option.split("=", 1)[1]
    if option.startswith("-l") and not option.startswith("-lineinfo"):
        return option[2:]
    return None


def _judge_define(definition: str, macros: dict[str, _Macro]) -> list[tuple[str, str]]:
    """A -D macro: added to the build's macros, and judged as the `#define` it is."""
    name, _, value = definition.partition("=")
    line = f"#define {name} {value or '1'}\n"
    parsed = _directive(_tokens(line))
    defined = _define(parsed[1]) if parsed is not None else None
    if defined is not None:
        macros[defined[0]] = defined[1]
    hits = judge_text(line)
    return [("native_build_flags", f"-D{definition} ({what})") for _, what in hits]


def judge_flags(flags: NativeFlags, macros: dict[str, _Macro]) -> list[tuple[str, str]]:
    """(flag, what) for one list of flags, include folders, compiler path or extension name."""
    known = [v for t in flags.items for v in t.values]
    if flags.role == "names":
        pattern = r"[A-Za-z_]\w*" if all(t.complete for t in flags.items) else r"\w*"
        return [
            ("native_build_flags", f"extension name {v!r}") for v in known if not re.fullmatch(pattern, v)
        ]
    if flags.role == "compiler":
        return [("native_build_flags", f"compiler binary {v!r}") for v in known]
    if flags.role == "paths":
        return [("native_build_flags", f"include folder {v}") for v in known if _FORBIDDEN_PATH.search(v)]
    return _judge_atoms(_atoms(known), macros)


def _line_of(text: Text, what: str, default: int) -> int:
    """The candidate line of the string constant holding what was matched (its longest word), if one does."""
    needle = max(re.findall(r"[A-Za-z_%][\w.%]*", what) or [""], key=len)
    for value, line in text.leaves:
        if needle and needle in value:
            return line
    return default


def analyze_tree(tree: ast.Module) -> list[Finding]:
    """Findings for the native sources of a parsed candidate."""
    extraction = extract(tree)
    findings: list[Finding] = []
    macros: dict[int, dict[str, _Macro]] = {}
    for flags in extraction.flags:
        build_macros = macros.setdefault(flags.build, {})
        for flag, what in judge_flags(flags, build_macros):
            findings.append(Finding(flag, flags.line, f"{what} in {flags.where}"))
    for source in extraction.sources:
        host_only = source.where.endswith(("cpp_sources", "sycl_sources")) and source.where.startswith(
            "load_inline"
        )
        for value in source.text.values:
            if source.lang == "ptx":
                hits = judge_asm(value)
            else:
                hits = judge_text(value, host_only=host_only, defines=macros.get(source.build))
            for flag, what in hits:
                line = _line_of(source.text, what, source.line)
                findings.append(Finding(flag, line, f"{what} in {source.where}"))
    for line, what in extraction.unresolved:
        findings.append(Finding("native_unresolved_source", line, what))
    findings += _python_side(extraction)
    if extraction.conservative:
        seen = {(f.flag, f.line, f.detail.split(" in ", 1)[0]) for f in findings}
        findings += [
            f
            for f in judge_everything(extraction)
            if (f.flag, f.line, f.detail.split(" in ", 1)[0]) not in seen
        ]
    unique = {(f.flag, f.line, f.detail): f for f in findings}
    return sorted(unique.values(), key=lambda f: (f.line, f.flag))


def _python_side(extraction: Extraction) -> list[Finding]:
    """Device clocks reached from Python: Triton's `tl.extra.cuda.globaltimer()`."""
    return [
        Finding("native_timer", line, f"reads {name} (a device clock)")
        for name, line in extraction.identifiers
        if "globaltimer" in name
    ]


def judge_everything(extraction: Extraction) -> list[Finding]:
    """Some native text is not fully known: every string constant of the file is judged as C text,
    and every identifier it spells against the forbidden names."""
    findings = []
    for value, line in extraction.constants:
        for flag, what in judge_text(value):
            findings.append(
                Finding(flag, line, f"{what} in a string constant (a native source is built at run time)")
            )
    for name, line in extraction.identifiers:
        if name in NAMED:
            findings.append(
                Finding(NAMED[name], line, f"the name {name} (a native source is built at run time)")
            )
    return findings


def analyze(code: str) -> list[Finding]:
    """Findings for the native sources in a candidate's code; none for code that does not parse."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return []
    return analyze_tree(tree)
