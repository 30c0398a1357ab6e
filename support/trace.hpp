// Post-processing of FxT traces for starpu_chol --trace: starpu_fxt_tool (paje.trace, dag.dot,
// tasks.rec) and a self-contained Gantt SVG (one lane per worker, one colour per kernel).
#pragma once
#include <string>
#include <vector>

namespace starfact::support {

/// Runs starpu_fxt_tool on DIR/prof_file_* inside DIR. Returns an empty string or an error.
std::string run_fxt_tool(const std::string& dir);

/// Reads a StarPU tasks.rec and writes an SVG Gantt chart; returns the number of tasks drawn
/// (throws std::runtime_error on unreadable input).
/// `workers` names the lanes (index = StarPU worker id); missing names read "worker N".
int gantt_svg(const std::string& tasks_rec, const std::string& svg_path, const std::string& title,
              const std::vector<std::string>& workers = {});

}  // namespace starfact::support

namespace starfact::support {

/// Before the Runtime starts: creates DIR and points FxT at it (STARPU_FXT_PREFIX=DIR/, STARPU_FXT_TRACE=1).
/// Throws std::invalid_argument naming --trace when DIR cannot be created.
void prepare_trace(const std::string& dir);

/// The StarPU worker names of the running Runtime (the Gantt chart's lanes), index = worker id.
std::vector<std::string> worker_names();

/// After starpu_shutdown wrote DIR/prof_file_*: starpu_fxt_tool, DIR/workers.txt and DIR/gantt.svg titled
/// `title`; prints where they are (a '#' note in CSV mode). Returns 0, or 1 with a message on stderr
/// prefixed by `tool`.
int finish_trace(const std::string& dir, const std::vector<std::string>& workers, const std::string& title,
                 const char* tool, bool csv);

}  // namespace starfact::support
