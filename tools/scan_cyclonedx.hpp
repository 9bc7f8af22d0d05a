// tools/scan_cyclonedx.hpp - `onnxview scan --format cyclonedx`: the records
// as a CycloneDX 1.6 bill of materials (JSON): a machine-learning-model
// component per model, a data component per external file it depends on,
// and the dependencies between them (docs/scan.md).
#ifndef ONNXVIEW_TOOLS_SCAN_CYCLONEDX_HPP
#define ONNXVIEW_TOOLS_SCAN_CYCLONEDX_HPP

#include <set>
#include <string>
#include <vector>

#include "onnxview/json_writer.hpp"
#include "onnxview/scan.hpp"

namespace onnxview_cli {

class cyclonedx_bom {
public:
    cyclonedx_bom();
    // A record's components (none for a file that is not a model).
    void add(const onnxview::scan_record& r);
    // The whole BOM.
    std::string document();

private:
    onnxview::json_writer components_;  // the components array, written as records come
    std::vector<std::pair<std::string, std::vector<std::string>>> dependencies_;
    std::set<std::string> files_;       // bom-refs of the data components written
    std::set<std::string> models_;      // and of the model components
};

}  // namespace onnxview_cli

#endif  // ONNXVIEW_TOOLS_SCAN_CYCLONEDX_HPP
