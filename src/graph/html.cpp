// The graph as one self-contained HTML page (graph_html, onnxview/graph.hpp):
// the page's template (page.html, compiled in) filled with the pictures it
// shows - the model's, then the inside of each folded box, laid out by
// Graphviz - as JSON that no name can break out of.
#include <deque>
#include <string>
#include <string_view>

#include "onnxview/graph.hpp"
#include "onnxview/json_writer.hpp"
#include "unfolded.hpp"

namespace onnxview {

extern const char graph_page_template[];  // page.html, by scripts/embed_text.py

namespace {

std::string html_text(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

// JSON inside a <script> element: '<', '>' and '&' (found only in strings)
// as \u escapes, so that no "</script>" or "<!--" can appear.
std::string script_safe(const std::string& json) {
    std::string out;
    out.reserve(json.size());
    for (char c : json) {
        if (c == '<') out += "\\u003c";
        else if (c == '>') out += "\\u003e";
        else if (c == '&') out += "\\u0026";
        else out += c;
    }
    return out;
}

// The template with its placeholders {{TITLE}} and {{PICTURES}} replaced,
// both found before either is filled (a title may read "{{PICTURES}}").
bool fill(std::string& page, const std::string& title, const std::string& pictures) {
    const std::string_view t = "{{TITLE}}", p = "{{PICTURES}}";
    const std::size_t at_title = page.find(t), at_pictures = page.find(p);
    if (at_title == std::string::npos || at_pictures == std::string::npos) return false;
    // The later one first: the earlier one's position stays.
    if (at_title > at_pictures) {
        page.replace(at_title, t.size(), title);
        page.replace(at_pictures, p.size(), pictures);
    } else {
        page.replace(at_pictures, p.size(), pictures);
        page.replace(at_title, t.size(), title);
    }
    return true;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

result<std::string> graph_html(const model_view& m, const graph_options& opts, std::string_view title,
                               std::string* why) {
    unfolded_ptr u;
    if (error e = unfold_graph(m, opts, u)) return e;
    struct wanted {
        graph_options opts;
        std::string title, parent, from_box;
    };
    std::deque<wanted> queue{{opts, std::string(title), std::string(), std::string()}};
    std::size_t named = 1;  // pictures given an id so far
    json_writer w(true);
    w.begin_object();
    w.field("format", "onnxview-graph-page");
    w.field("version", std::uint64_t(1));
    w.key("pictures");
    w.begin_array();
    for (std::size_t id = 0; !queue.empty(); ++id) {
        const wanted want = std::move(queue.front());
        queue.pop_front();
        const result<graph_picture> p = fold_graph(*u, want.opts);
        if (!p) return p.err();
        std::string svg;
        if (p->boxes.size() <= max_page_layout_boxes) {
            result<std::string> laid = graph_svg(*p, why);
            if (!laid) return laid.err();
            svg = std::move(*laid);
        }
        w.begin_object();
        w.field("id", "p" + std::to_string(id));
        w.field("title", std::string_view(want.title));
        w.field("parent", std::string_view(want.parent));
        w.field("from_box", std::string_view(want.from_box));
        w.field("svg", std::string_view(svg));
        w.key("graph");
        w.number(graph_json(*p, true));
        // Each folded box opens the picture of its inside (a run: its first scope's).
        w.key("unfold");
        w.begin_object();
        for (const graph_box& b : p->boxes) {
            if (b.kind != graph_box_kind::scope && b.kind != graph_box_kind::repeat) continue;
            if (named >= max_page_pictures) break;
            wanted inside{want.opts, first_line(b.label), "p" + std::to_string(id), b.id};
            inside.opts.within = b.name;
            inside.opts.depth = 0;
            inside.opts.around.clear();
            w.field(b.id, "p" + std::to_string(named++));
            queue.push_back(std::move(inside));
        }
        w.end_object();
        w.end_object();
    }
    w.end_array();
    w.end_object();
    std::string page = graph_page_template;
    if (!fill(page, html_text(title), script_safe(w.str()))) {
        if (why != nullptr) *why = "the page's template lacks a placeholder";
        return error(errc::invalid_argument);
    }
    return page;
}

}  // namespace onnxview
