// bench_task_overhead: StarPU's own cost per task on this machine, with codelets that do nothing (no
// kernel is launched, no data moves), for each scheduler and CPU-worker count asked for:
//   independent  N tasks without data, submitted in a loop, then waited for: throughput (us per task)
//   chain        N tasks each writing the same variable: every task waits for the previous one, so the
//                time per task is the runtime's latency from one task's end to the next one's start
//   submit       the host time of the submission loop alone (chain case), per task
// Tasks run on CUDA workers when the runtime has them (an empty asynchronous CUDA codelet: StarPU still
// waits for the worker's stream), else on CPU workers. This is the floor under every task of a DAG: a
// factorization whose critical path has K tasks pays at least K chain latencies.
#include <starpu.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "starfact/runtime.hpp"
#include "support/cli.hpp"

namespace {

const char* kHelp =
    "bench_task_overhead: StarPU's cost per empty task (independent throughput, dependent chain latency)\n"
    "  --tasks N       tasks per measurement (default 2000)\n"
    "  --scheds LIST   schedulers, comma separated (default dmdas,prio,eager,lws)\n"
    "  --ncpus LIST    CPU worker counts, comma separated (default 0,-1; -1: StarPU's default)\n"
    "  --streams N     CUDA workers per GPU (default 4)\n"
    "  --repeat N      repetitions; medians are printed (default 5)\n"
    "  --help          this text\n";

void empty_cpu(void*[], void*) {}
void empty_cuda(void*[], void*) {}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

struct Times {
    double independent_us, chain_us, submit_us;
};

Times measure(int ntasks, int repeat, bool cuda) {
    starpu_codelet cl;
    starpu_codelet_init(&cl);
    cl.where = cuda ? STARPU_CUDA : STARPU_CPU;
    cl.cpu_funcs[0] = empty_cpu;
    cl.cuda_funcs[0] = empty_cuda;
    cl.cuda_flags[0] = STARPU_CUDA_ASYNC;
    cl.nbuffers = 0;
    starpu_codelet cl_rw = cl;
    cl_rw.nbuffers = 1;
    cl_rw.modes[0] = STARPU_RW;
    int value = 0;
    starpu_data_handle_t h;
    starpu_variable_data_register(&h, STARPU_MAIN_RAM, reinterpret_cast<uintptr_t>(&value), sizeof value);
    std::vector<double> ind, chain, submit;
    using clock = std::chrono::steady_clock;
    for (int r = 0; r < repeat + 1; ++r) {  // the first round warms up
        auto t0 = clock::now();
        for (int i = 0; i < ntasks; ++i) {
            starpu_task* t = starpu_task_create();
            t->cl = &cl;
            if (starpu_task_submit(t) != 0) std::abort();
        }
        starpu_task_wait_for_all();
        auto t1 = clock::now();
        for (int i = 0; i < ntasks; ++i) {
            starpu_task* t = starpu_task_create();
            t->cl = &cl_rw;
            t->handles[0] = h;
            if (starpu_task_submit(t) != 0) std::abort();
        }
        auto t2 = clock::now();
        starpu_task_wait_for_all();
        auto t3 = clock::now();
        if (r == 0) continue;
        ind.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / ntasks);
        chain.push_back(std::chrono::duration<double, std::micro>(t3 - t1).count() / ntasks);
        submit.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count() / ntasks);
    }
    starpu_data_unregister(h);
    return {median(ind), median(chain), median(submit)};
}

}  // namespace

int main(int argc, char** argv) {
    int ntasks = 2000, repeat = 5, streams = 4;
    std::vector<std::string> scheds = {"dmdas", "prio", "eager", "lws"};
    std::vector<int> ncpus = {0, -1};
    try {
        starfact::support::Cli cli(argc, argv);
        while (!cli.done()) {
            const std::string f = cli.next();
            if (f == "--help") {
                std::printf("%s", kHelp);
                return 0;
            } else if (f == "--tasks") ntasks = static_cast<int>(cli.integer(1, 10000000));
            else if (f == "--scheds") scheds = starfact::support::split_list(cli.value());
            else if (f == "--ncpus") {
                ncpus.clear();
                for (int64_t v : starfact::support::int_list(cli.value(), "--ncpus", -1, 4096))
                    ncpus.push_back(static_cast<int>(v));
            } else if (f == "--streams") streams = static_cast<int>(cli.integer(1, 64));
            else if (f == "--repeat") repeat = static_cast<int>(cli.integer(1, 1000));
            else cli.unknown();
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_task_overhead: %s\n", e.what());
        return 1;
    }
    std::printf("%-6s %6s %6s %5s %15s %10s %10s\n", "sched", "ncpus", "cuda_w", "where", "independent_us", "chain_us",
                "submit_us");
    for (const std::string& sched : scheds)
        for (int nc : ncpus) {
            starfact::RuntimeConfig cfg;
            cfg.ncpus = nc;
            cfg.scheduler = sched;
            cfg.workers_per_gpu = streams;
            try {
                starfact::Runtime rt(cfg);
                const bool cuda = rt.cuda_workers() > 0;
                if (!cuda && rt.cpu_workers() == 0) continue;
                const Times t = measure(ntasks, repeat, cuda);
                std::printf("%-6s %6d %6d %5s %15.2f %10.2f %10.2f\n", sched.c_str(), rt.cpu_workers(),
                            rt.cuda_workers(), cuda ? "cuda" : "cpu", t.independent_us, t.chain_us, t.submit_us);
                std::fflush(stdout);
            } catch (const std::exception& e) {
                std::printf("%-6s %6d: %s\n", sched.c_str(), nc, e.what());
            }
        }
    return 0;
}
