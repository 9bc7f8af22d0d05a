// tools/sarif.hpp - `onnxview check --sarif`: the findings as a SARIF 2.1.0
// log (OASIS Static Analysis Results Interchange Format), which code
// scanning in CI reads.
#ifndef ONNXVIEW_TOOLS_SARIF_HPP
#define ONNXVIEW_TOOLS_SARIF_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace onnxview_cli {

// One finding of `onnxview check`, structural or numeric, as it is printed.
struct reported_finding {
    const char* severity;  // "error", "warning", "info"
    const char* code;      // finding_code_name or numeric_code_name
    std::string path;      // "graph.initializer[3] 'w'"
    std::string message;
    std::uint64_t offset;
    std::string tensor;  // numeric findings: the tensor's name
    std::uint64_t count;
    bool has_count;
    bool numeric;
};

// The SARIF log of `found` for the model at `model_path` (as given on the
// command line): one run, a rule per code seen, a result per finding whose
// physical location is the model file (with the byte offset) and whose
// logical location is the finding's path.
std::string sarif_log(const char* model_path, const std::vector<reported_finding>& found);

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_SARIF_HPP
