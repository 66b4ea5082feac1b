"""Exploit (native, work deferred past the timed call to a detached thread): timed calls do no work.

The C++ forward returns at once an output tensor nothing has written yet, and hands the work to a
detached `std::thread` (started on the first call, so it is already counted when the harness
counts threads after the first call, and no Python thread is ever started). The output's memory is
a shared-memory page mapped twice: the worker thread writes 2x + 1 through one mapping while the
other, the one the tensor owns, stays `PROT_NONE` until the worker is done (an output dropped
before that is recycled by the worker: freeing never waits). A reader that comes
too early (the checker, in any thread) faults, and a SIGSEGV handler waits for the worker, opens
the page and lets the read run again: whoever looks sees the right values, while the call that was
timed only queued the work. A plain `torch.Tensor` with real storage (from `from_blob`), on the
CPU: nothing measures work that trails a CPU call. On this 64 x 33 task the work moved out of the
call is smaller than the queueing; on a large task it is all of it."""

import torch
from torch.utils.cpp_extension import load_inline

SOURCE = r"""
#include <torch/extension.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace {

enum State { kFree = 0, kPending = 1, kDone = 2, kOrphan = 3 };  // orphan: freed before written

struct Slot {
    char* view;    // what the tensor owns: PROT_NONE until written
    char* shadow;  // the same pages, writable: where the worker writes
    size_t len;
    std::atomic<int> state{kFree};
};

const int kMaxSlots = 4096;
std::atomic<Slot*> g_slots[kMaxSlots];  // read by the signal handler: no locks
std::atomic<int> g_nslots{0};
struct sigaction g_old_segv;

void on_fault(int sig, siginfo_t* info, void* ctx) {
    char* addr = static_cast<char*>(info->si_addr);
    for (int i = 0; i < g_nslots.load(); ++i) {
        Slot* s = g_slots[i].load();
        if (s == nullptr || addr < s->view || addr >= s->view + s->len) continue;
        if (s->state.load() == kFree) break;  // not ours to open: a use after free
        while (s->state.load(std::memory_order_acquire) != kDone) sched_yield();
        mprotect(s->view, s->len, PROT_READ | PROT_WRITE);
        return;  // the faulting read runs again, on written memory
    }
    if (g_old_segv.sa_flags & SA_SIGINFO) {
        g_old_segv.sa_sigaction(sig, info, ctx);
    } else if (g_old_segv.sa_handler != SIG_IGN && g_old_segv.sa_handler != SIG_DFL) {
        g_old_segv.sa_handler(sig);
    } else {
        signal(sig, SIG_DFL);
    }
}

// Never destroyed: the worker still waits on them when the process exits.
std::mutex& g_lock = *new std::mutex;
std::map<size_t, std::vector<Slot*>>& g_pool = *new std::map<size_t, std::vector<Slot*>>;  // free, by length
std::deque<std::pair<at::Tensor, Slot*>>& g_jobs = *new std::deque<std::pair<at::Tensor, Slot*>>;
std::condition_variable& g_wake = *new std::condition_variable;

Slot* take_slot(size_t len) {
    {
        std::lock_guard<std::mutex> guard(g_lock);
        auto& free = g_pool[len];
        if (!free.empty()) {
            Slot* s = free.back();
            free.pop_back();
            return s;
        }
    }
    int fd = memfd_create("out", MFD_CLOEXEC);
    TORCH_CHECK(fd >= 0 && ftruncate(fd, len) == 0, "memfd");
    auto* s = new Slot;
    s->view = static_cast<char*>(mmap(nullptr, len, PROT_NONE, MAP_SHARED, fd, 0));
    s->shadow = static_cast<char*>(mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    s->len = len;
    close(fd);
    int i = g_nslots.load();
    TORCH_CHECK(i < kMaxSlots, "too many outputs alive");
    g_slots[i].store(s);
    g_nslots.store(i + 1);
    return s;
}

void recycle(Slot* s) {
    mprotect(s->view, s->len, PROT_NONE);
    s->state.store(kFree);
    std::lock_guard<std::mutex> guard(g_lock);
    g_pool[s->len].push_back(s);
}

// The tensor's deleter: never waits (a caller that drops its output at once would time the work);
// a slot still being written is left to the worker to recycle.
void give_back(Slot* s) {
    int pending = kPending;
    if (!s->state.compare_exchange_strong(pending, kOrphan)) recycle(s);
}

void worker() {
    for (;;) {
        std::unique_lock<std::mutex> guard(g_lock);
        g_wake.wait(guard, [] { return !g_jobs.empty(); });
        auto job = std::move(g_jobs.front());
        g_jobs.pop_front();
        guard.unlock();
        const at::Tensor& x = job.first;
        Slot* s = job.second;
        const float* in = x.data_ptr<float>();
        float* out = reinterpret_cast<float*>(s->shadow);
        for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] * 2.0f + 1.0f;
        mprotect(s->view, s->len, PROT_READ | PROT_WRITE);
        int pending = kPending;
        if (!s->state.compare_exchange_strong(pending, kDone, std::memory_order_acq_rel)) recycle(s);  // orphaned
    }
}

void start() {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
    std::thread(worker).detach();
}

}  // namespace

torch::Tensor scale_shift(torch::Tensor x) {
    static bool started = (start(), true);
    (void)started;
    x = x.contiguous();
    size_t page = sysconf(_SC_PAGESIZE);
    size_t len = (x.nbytes() + page - 1) / page * page;
    Slot* s = take_slot(len);
    s->state.store(kPending);
    auto y = torch::from_blob(s->view, x.sizes(), [s](void*) { give_back(s); }, x.options());
    {
        std::lock_guard<std::mutex> guard(g_lock);
        g_jobs.emplace_back(x, s);
    }
    g_wake.notify_one();
    return y;  // nothing written yet
}
"""

ext = load_inline(
    name="rt_deferred_thread_write", cpp_sources=SOURCE, functions=["scale_shift"], verbose=False
)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return ext.scale_shift(x)
