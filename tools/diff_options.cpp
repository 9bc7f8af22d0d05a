// tools/diff_options.cpp - the value of `onnxview diff --fail-on`, parsed
// (--ignore and --weights are parsed by the comparison library).
#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>

#include "diff.hpp"

namespace onnxview_cli {

bool parse_fail_on(std::string_view list, failing& out) {
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view item = list.substr(0, comma);
        if (item == "signature") out.signature = true;
        else if (item == "graph") out.graph = true;
        else if (item == "weights") out.weights = true;
        else return false;
        list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    }
    return true;
}

}  // namespace onnxview_cli
