// starfact_gantt: tasks.rec (from starpu_fxt_tool) -> self-contained SVG Gantt chart.
#include <cstdio>
#include <exception>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/trace.hpp"

int main(int argc, char** argv) {
    if (argc < 3 || std::string(argv[1]) == "--help") {
        std::fprintf(stderr, "usage: starfact_gantt tasks.rec out.svg [title [workers.txt]]\n"
                             "Draws one lane per StarPU worker and one colour per kernel (the task name up to '(').\n"
                             "workers.txt (written by starpu_chol --trace) names the lanes, one worker per line.\n");
        return argc < 3 ? 1 : 0;
    }
    try {
        std::vector<std::string> workers;
        if (argc > 4) {
            std::ifstream in(argv[4]);
            if (!in) throw std::runtime_error(std::string("cannot read ") + argv[4]);
            for (std::string line; std::getline(in, line);) workers.push_back(line);
        }
        const int n = starfact::support::gantt_svg(argv[1], argv[2], argc > 3 ? argv[3] : argv[1], workers);
        std::printf("%d tasks drawn into %s\n", n, argv[2]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "starfact_gantt: %s\n", e.what());
        return 1;
    }
    return 0;
}
