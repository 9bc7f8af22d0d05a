// graph_svg in a build without Graphviz's library: every call says so
// (errc::unsupported), and the other formats of onnxview/graph.hpp work.
#include <string>

#include "onnxview/graph.hpp"

namespace onnxview {

bool graph_layout_available() noexcept { return false; }

result<std::string> graph_svg(const graph_picture&, std::string* why) {
    if (why != nullptr)
        *why = "this onnxview was built without Graphviz's library: install libgraphviz-dev (Debian) and "
               "rebuild, or lay the DOT out with `dot -Tsvg`";
    return error(errc::unsupported);
}

}  // namespace onnxview
