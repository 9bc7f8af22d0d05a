// The picture as Graphviz DOT, JSON and Mermaid (onnxview/graph.hpp). Names
// are whatever bytes a model holds: each writer escapes them for its format
// (quotes, backslashes, newlines, markup, bytes that are not UTF-8), so that
// no name can end a string, open a tag or inject a statement.
#include <string>
#include <string_view>

#include "onnxview/graph.hpp"
#include "onnxview/json_writer.hpp"

namespace onnxview {
namespace {

// Length of the valid UTF-8 sequence at s[i] (1-4), or 0 when there is none.
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) return 1;
    std::size_t n = 0;
    unsigned cp = 0, min = 0;
    if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07, min = 0x10000;
    else return 0;
    if (s.size() - i < n) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

// Calls put(piece) for each character of s: valid UTF-8 sequences as they
// are, each byte that is not one as U+FFFD, control bytes but '\n' as a space.
template <class Put>
void each_char(std::string_view s, Put put) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8_sequence(s, i);
        if (n == 0) {
            put(std::string_view("\xEF\xBF\xBD"));
            ++i;
            continue;
        }
        const char c = s[i];
        if (n == 1 && static_cast<unsigned char>(c) < 0x20 && c != '\n') put(std::string_view(" "));
        else put(s.substr(i, n));
        i += n;
    }
}

// A DOT double-quoted string: quotes and backslashes escaped, newlines as \n
// (centred lines).
std::string dot_string(std::string_view s) {
    std::string out = "\"";
    each_char(s, [&](std::string_view c) {
        if (c == "\"") out += "\\\"";
        else if (c == "\\") out += "\\\\";
        else if (c == "\n") out += "\\n";
        else out += c;
    });
    return out + "\"";
}

// Mermaid text in double quotes: its entity codes for quotes and markup,
// <br/> for newlines.
std::string mermaid_string(std::string_view s) {
    std::string out = "\"";
    each_char(s, [&](std::string_view c) {
        if (c == "\"") out += "#quot;";
        else if (c == "<") out += "#lt;";
        else if (c == ">") out += "#gt;";
        else if (c == "&") out += "#amp;";
        else if (c == "#") out += "#35;";
        else if (c == "\n") out += "<br/>";
        else out += c;
    });
    return out + "\"";
}

std::string edge_label(const graph_edge& e) {
    std::string s = e.value;
    if (e.values > 1) s += " +" + std::to_string(e.values - 1);
    if (!e.type.empty()) s += "\n" + e.type;
    return s;
}

const char* dot_shape(graph_box_kind k) {
    switch (k) {
        case graph_box_kind::node: return "shape=box, style=\"rounded,filled\", fillcolor=\"#e8eef7\"";
        case graph_box_kind::input: return "shape=ellipse, style=filled, fillcolor=\"#dff0d8\"";
        case graph_box_kind::output: return "shape=ellipse, style=filled, fillcolor=\"#fcf8e3\"";
        case graph_box_kind::initializer: return "shape=note, style=filled, fillcolor=\"#f5f5f5\"";
        case graph_box_kind::scope: return "shape=box3d, style=filled, fillcolor=\"#d9e7f5\"";
        case graph_box_kind::repeat: return "shape=box3d, peripheries=2, style=filled, fillcolor=\"#c6dbef\"";
        case graph_box_kind::range: return "shape=folder, style=filled, fillcolor=\"#eeeeee\"";
    }
    return "shape=box";
}

void dot_cluster(std::string& out, const graph_picture& p, const std::string& cluster, int indent) {
    const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
    for (const graph_box& b : p.boxes)
        if (b.cluster == cluster)
            out += pad + b.id + " [id=" + b.id + ", " + dot_shape(b.kind) + ", label=" + dot_string(b.label) + "];\n";
    for (const graph_cluster& c : p.clusters)
        if (c.parent == cluster) {
            out += pad + "subgraph cluster_" + c.id + " {\n";
            out += pad + "  id=" + c.id + ";\n" + pad + "  label=" + dot_string(c.label) + ";\n  " + pad + "style=dashed;\n";
            dot_cluster(out, p, c.id, indent + 1);
            out += pad + "}\n";
        }
}

}  // namespace

std::string graph_dot(const graph_picture& p) {
    std::string out = "digraph onnx {\n";
    out += "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, labelloc=t, label=" + dot_string(p.note) + "];\n";
    out += "  node [fontname=\"Helvetica\", fontsize=10];\n";
    out += "  edge [fontname=\"Helvetica\", fontsize=8, color=\"#555555\"];\n";
    dot_cluster(out, p, std::string(), 1);
    for (const graph_edge& e : p.edges)
        out += "  " + e.from + " -> " + e.to + " [label=" + dot_string(edge_label(e)) + "];\n";
    return out + "}\n";
}

std::string graph_mermaid(const graph_picture& p) {
    std::string out = "flowchart TB\n";
    out += "  %% " + p.note + "\n";  // the note is onnxview's own words: no newline in it
    for (const graph_box& b : p.boxes)
        if (b.cluster.empty()) out += "  " + b.id + "[" + mermaid_string(b.label) + "]\n";
    // Clusters, outermost first: Mermaid's subgraphs nest by where they are written.
    struct writer {
        const graph_picture& p;
        std::string& out;
        void cluster(const std::string& parent, int indent) {
            const std::string pad(static_cast<std::size_t>(indent) * 2, ' ');
            for (const graph_cluster& c : p.clusters)
                if (c.parent == parent) {
                    out += pad + "subgraph " + c.id + "[" + mermaid_string(c.label) + "]\n";
                    for (const graph_box& b : p.boxes)
                        if (b.cluster == c.id) out += pad + "  " + b.id + "[" + mermaid_string(b.label) + "]\n";
                    cluster(c.id, indent + 1);
                    out += pad + "end\n";
                }
        }
    } w{p, out};
    w.cluster(std::string(), 1);
    for (const graph_edge& e : p.edges) out += "  " + e.from + " -->|" + mermaid_string(edge_label(e)) + "| " + e.to + "\n";
    return out;
}

std::string graph_json(const graph_picture& p, bool compact) {
    json_writer w(compact);
    w.begin_object();
    w.field("format", "onnxview-graph");
    w.field("version", std::uint64_t(1));
    w.field("model_nodes", p.model_nodes);
    w.field("fold", graph_fold_name(p.fold));
    w.field("depth", static_cast<std::uint64_t>(p.depth));
    w.field("note", std::string_view(p.note));
    w.key("boxes");
    w.begin_array();
    for (const graph_box& b : p.boxes) {
        w.begin_object();
        w.field("id", std::string_view(b.id));
        w.field("kind", graph_box_kind_name(b.kind));
        w.field("label", std::string_view(b.label));
        if (!b.op_type.empty()) w.field("op_type", std::string_view(b.op_type));
        w.field("name", std::string_view(b.name));
        w.field("cluster", std::string_view(b.cluster));
        w.field("nodes", b.nodes);
        w.field("parameters", b.parameters);
        if (b.kind == graph_box_kind::repeat) w.field("repeats", b.repeats);
        if (!b.macs.empty()) w.field("macs", std::string_view(b.macs));
        if (!b.attributes.empty()) {
            w.key("attributes");
            w.begin_array();
            for (const graph_attribute& a : b.attributes) {
                w.begin_object();
                w.field("name", std::string_view(a.name));
                w.field("value", std::string_view(a.value));
                w.end_object();
            }
            w.end_array();
        }
        w.end_object();
    }
    w.end_array();
    w.key("edges");
    w.begin_array();
    for (const graph_edge& e : p.edges) {
        w.begin_object();
        w.field("from", std::string_view(e.from));
        w.field("to", std::string_view(e.to));
        w.field("value", std::string_view(e.value));
        w.field("type", std::string_view(e.type));
        if (e.inferred) w.field("inferred", true);
        w.field("values", e.values);
        w.end_object();
    }
    w.end_array();
    w.key("clusters");
    w.begin_array();
    for (const graph_cluster& c : p.clusters) {
        w.begin_object();
        w.field("id", std::string_view(c.id));
        w.field("label", std::string_view(c.label));
        w.field("parent", std::string_view(c.parent));
        w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.str();
}

}  // namespace onnxview
