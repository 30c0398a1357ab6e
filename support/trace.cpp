// starpu_fxt_tool invocation and the Gantt SVG writer (tasks.rec -> SVG).
#include "support/trace.hpp"

#include "codelets/kernel_colors.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <starpu.h>

namespace starfact::support {
namespace {

std::string find_fxt_tool() {
    if (const char* env = std::getenv("STARFACT_FXT_TOOL")) return env;
    if (const char* path = std::getenv("PATH")) {
        std::stringstream ss(path);
        std::string d;
        while (std::getline(ss, d, ':')) {
            const std::string cand = d + "/starpu_fxt_tool";
            if (access(cand.c_str(), X_OK) == 0) return cand;
        }
    }
    return std::string(STARFACT_STARPU_PREFIX) + "/bin/starpu_fxt_tool";
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

struct Rec {
    std::string name;
    int worker = -1;
    double start = -1, end = -1;
};

std::string fmt_ms(double ms) {
    char b[32];
    std::snprintf(b, sizeof b, "%.3g ms", ms);
    return b;
}

/// Kernel name of a task name such as "gemm(3,1,0)".
std::string kernel_of(const std::string& name) { return name.substr(0, name.find('(')); }

}  // namespace

std::string run_fxt_tool(const std::string& dir) {
    const std::string tool = find_fxt_tool();
    const std::string lib = std::string(STARFACT_STARPU_PREFIX) + "/lib";
    const std::string cmd = "cd " + quote(dir) + " && LD_LIBRARY_PATH=" + quote(lib) +
                            "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} " + quote(tool) +
                            " -i prof_file_* > fxt_tool.log 2>&1";  // (its -o frees a literal in 1.3.10)
    const int rc = std::system(cmd.c_str());
    if (rc != 0)
        return "starpu_fxt_tool failed (exit " + std::to_string(WEXITSTATUS(rc)) + "); see " + dir + "/fxt_tool.log";
    return "";
}

int gantt_svg(const std::string& tasks_rec, const std::string& svg_path, const std::string& title,
              const std::vector<std::string>& workers) {
    std::ifstream in(tasks_rec);
    if (!in) throw std::runtime_error("cannot read " + tasks_rec);
    std::vector<Rec> recs;
    Rec cur;
    auto flush = [&] {
        if (!cur.name.empty() && cur.worker >= 0 && cur.start >= 0 && cur.end >= cur.start) recs.push_back(cur);
        cur = Rec{};
    };
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) {
            flush();
            continue;
        }
        const auto colon = line.find(": ");
        if (colon == std::string::npos) continue;
        const std::string key = line.substr(0, colon), val = line.substr(colon + 2);
        if (key == "Name") cur.name = val;
        else if (key == "WorkerId") cur.worker = std::atoi(val.c_str());
        else if (key == "StartTime") cur.start = std::atof(val.c_str());
        else if (key == "EndTime") cur.end = std::atof(val.c_str());
    }
    flush();
    // Application tasks only (StarPU-internal ones have no coordinates in their name).
    recs.erase(std::remove_if(recs.begin(), recs.end(), [](const Rec& r) { return r.name.find('(') == std::string::npos; }),
               recs.end());
    if (recs.empty()) throw std::runtime_error("no application task with timing in " + tasks_rec);

    double t0 = recs[0].start, t1 = recs[0].end;
    int maxw = 0;
    std::map<std::string, int> kernels;
    for (const Rec& r : recs) {
        t0 = std::min(t0, r.start);
        t1 = std::max(t1, r.end);
        maxw = std::max(maxw, r.worker);
        kernels.emplace(kernel_of(r.name), 0);
    }
    std::map<std::string, std::string> colour;
    for (auto& k : kernels) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "#%06x", starfact::detail::kernel_color(k.first));
        colour[k.first] = hex;
    }

    maxw = std::max(maxw, static_cast<int>(workers.size()) - 1);  // idle workers get their (empty) lane too
    const double left = 170, top = 50, lane = 22, width = 1100;
    const double span = std::max(t1 - t0, 1e-9), sx = width / span;
    const double height = top + (maxw + 1) * lane + 60;
    std::ofstream svg(svg_path);
    if (!svg) throw std::runtime_error("cannot write " + svg_path);
    svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << left + width + 20 << "\" height=\"" << height
        << "\" font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
        << "<text x=\"" << left << "\" y=\"20\" font-size=\"14\">" << title << "</text>\n";
    for (int w = 0; w <= maxw; ++w)
        svg << "<text x=\"5\" y=\"" << top + w * lane + 15 << "\">"
            << (w < static_cast<int>(workers.size()) ? workers[w].substr(0, 26) : "worker " + std::to_string(w))
            << "</text>\n"
            << "<rect x=\"" << left << "\" y=\"" << top + w * lane << "\" width=\"" << width << "\" height=\"" << lane - 2
            << "\" fill=\"#f2f2f2\"/>\n";
    for (const Rec& r : recs)
        svg << "<rect x=\"" << left + (r.start - t0) * sx << "\" y=\"" << top + r.worker * lane << "\" width=\""
            << std::max(0.5, (r.end - r.start) * sx) << "\" height=\"" << lane - 2 << "\" fill=\""
            << colour[kernel_of(r.name)] << "\"><title>" << r.name << " " << fmt_ms(r.end - r.start)
            << "</title></rect>\n";
    const double axis = top + (maxw + 1) * lane + 15;
    for (int i = 0; i <= 10; ++i)
        svg << "<text x=\"" << left + i * width / 10 << "\" y=\"" << axis << "\">" << fmt_ms(span * i / 10)
            << "</text>\n";
    double lx = left;
    for (const auto& k : kernels) {
        svg << "<rect x=\"" << lx << "\" y=\"" << axis + 12 << "\" width=\"12\" height=\"12\" fill=\"" << colour[k.first]
            << "\"/><text x=\"" << lx + 16 << "\" y=\"" << axis + 22 << "\">" << k.first << "</text>\n";
        lx += 110;
    }
    svg << "</svg>\n";
    return static_cast<int>(recs.size());
}

}  // namespace starfact::support

namespace starfact::support {

void prepare_trace(const std::string& dir) {
    if (std::system(("mkdir -p '" + dir + "'").c_str()) != 0)
        throw std::invalid_argument("--trace: cannot create " + dir);
    setenv("STARPU_FXT_PREFIX", (dir + "/").c_str(), 1);
    setenv("STARPU_FXT_TRACE", "1", 1);
}

std::vector<std::string> worker_names() {
    std::vector<std::string> names;
    for (unsigned w = 0; w < starpu_worker_get_count(); ++w) {
        char name[64];
        starpu_worker_get_name(static_cast<int>(w), name, sizeof name);
        names.push_back(name);
    }
    return names;
}

int finish_trace(const std::string& dir, const std::vector<std::string>& workers, const std::string& title,
                 const char* tool, bool csv) {
    const std::string err = run_fxt_tool(dir);
    if (!err.empty()) {
        std::fprintf(stderr, "%s: %s\n", tool, err.c_str());
        return 1;
    }
    try {
        std::ofstream names(dir + "/workers.txt");
        for (const auto& w : workers) names << w << "\n";
        const int tasks = gantt_svg(dir + "/tasks.rec", dir + "/gantt.svg", title, workers);
        std::printf("%strace: %s/paje.trace, dag.dot, tasks.rec, workers.txt and gantt.svg (%d tasks)\n", csv ? "# " : "",
                    dir.c_str(), tasks);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: gantt: %s\n", tool, e.what());
        return 1;
    }
    return 0;
}

}  // namespace starfact::support
