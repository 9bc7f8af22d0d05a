// graph_svg through Graphviz's library (libgvc, libcgraph): the DOT of
// graph_dot laid out by `dot` and rendered as SVG in this process, so that
// `onnxview graph --format svg|html` needs no `dot` on PATH. Built when
// meson finds libgvc; layout_none.cpp stands in otherwise.
#include <mutex>
#include <string>

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include "onnxview/graph.hpp"

namespace onnxview {
namespace {

// Graphviz keeps global state (its error level, the cgraph discipline):
// one layout at a time.
std::mutex graphviz_lock;

// One context for the process, made on first use and never freed: Graphviz
// 2.42's text-size cache (the pango plugin's last font) outlives a context,
// and a second context reads what freeing the first released - a
// use-after-free AddressSanitizer found on the second picture of a page.
GVC_t* graphviz_context() {
    static GVC_t* const context = gvContext();
    return context;
}

// Graphviz's own messages (a graph too large for its fixed-size arrays,
// say) would otherwise go to stderr in the middle of our output.
std::string* graphviz_messages = nullptr;
int keep_message(char* text) {
    if (graphviz_messages != nullptr && text != nullptr) *graphviz_messages += text;
    return 0;
}

}  // namespace

bool graph_layout_available() noexcept { return true; }

result<std::string> graph_svg(const graph_picture& p, std::string* why) {
    const std::string dot = graph_dot(p);
    const std::lock_guard<std::mutex> hold(graphviz_lock);
    std::string messages;
    graphviz_messages = &messages;
    agseterrf(keep_message);
    agseterr(AGERR);
    GVC_t* gvc = graphviz_context();
    Agraph_t* g = gvc != nullptr ? agmemread(dot.c_str()) : nullptr;
    std::string svg;
    bool ok = g != nullptr && gvLayout(gvc, g, "dot") == 0;
    if (ok) {
        char* data = nullptr;
        unsigned int length = 0;
        ok = gvRenderData(gvc, g, "svg", &data, &length) == 0 && data != nullptr;
        if (ok) svg.assign(data, length);
        gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
    }
    if (g != nullptr) agclose(g);
    graphviz_messages = nullptr;
    if (!ok) {
        if (why != nullptr) *why = messages.empty() ? "Graphviz could not lay the picture out" : messages;
        return error(errc::invalid_argument);
    }
    return svg;
}

}  // namespace onnxview
