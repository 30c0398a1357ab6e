// Post-processing of FxT traces for starpu_chol --trace: starpu_fxt_tool (paje.trace, dag.dot,
// tasks.rec) and a self-contained Gantt SVG (one lane per worker, one colour per kernel).
#pragma once
#include <string>
#include <vector>

namespace starfact::examples {

/// Runs starpu_fxt_tool on DIR/prof_file_* inside DIR. Returns an empty string or an error.
std::string run_fxt_tool(const std::string& dir);

/// Reads a StarPU tasks.rec and writes an SVG Gantt chart; returns the number of tasks drawn
/// (throws std::runtime_error on unreadable input).
/// `workers` names the lanes (index = StarPU worker id); missing names read "worker N".
int gantt_svg(const std::string& tasks_rec, const std::string& svg_path, const std::string& title,
              const std::vector<std::string>& workers = {});

}  // namespace starfact::examples
