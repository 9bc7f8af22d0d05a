// fuzz/fuzz_graph.cpp - arbitrary bytes drawn as a model's graph
// (onnxview/graph.hpp), in every fold mode and every format.
//
// The contract checked here: on bytes that verify, draw_graph returns (no
// graph and a depth beyond the limit are the only errors), never crashes or
// hangs, whatever the names (any bytes), the wiring (cycles, a node reading
// its own output, values read before they are made) or the scopes; every
// edge joins two boxes of the picture; the JSON is whole and well nested;
// the DOT's quoted strings all close and its braces balance. The same for
// the neighbourhood of the first node (--around), the inside of the first
// folded box (--within), with the calls of local functions expanded and the
// shapes inferred in some of the modes.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "fuzz_check.hpp"
#include "onnxview/graph.hpp"
#include "onnxview/verify.hpp"

namespace {

using namespace onnxview;

void check_dot(const std::string& dot) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < dot.size(); ++i) {
        const char c = dot[i];
        if (in_string) {
            FUZZ_CHECK(c != '\n');  // a name's newline is written \n
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{') {
            ++depth;
        } else if (c == '}') {
            FUZZ_CHECK(depth > 0);
            --depth;
        }
    }
    FUZZ_CHECK(depth == 0 && !in_string);
}

void check_picture(const graph_picture& p) {
    std::set<std::string> ids;
    for (const graph_box& b : p.boxes) FUZZ_CHECK(ids.insert(b.id).second);
    for (const graph_edge& e : p.edges) FUZZ_CHECK(ids.count(e.from) == 1 && ids.count(e.to) == 1 && e.from != e.to);
    check_dot(graph_dot(p));
    const std::string json = graph_json(p);
    fuzz_check_json_nesting(json);
    FUZZ_CHECK(json.size() >= 2 && json.compare(json.size() - 2, 2, "}\n") == 0);
    const std::string mermaid = graph_mermaid(p);
    FUZZ_CHECK(mermaid.compare(0, 12, "flowchart TB") == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > (1u << 20)) return 0;
    if (!verify(data, size, schema::msg_ModelProto, options{}).ok()) return 0;
    const model_view m = parse_model(data, size);
    for (graph_fold f : {graph_fold::none, graph_fold::scope, graph_fold::repeat, graph_fold::automatic}) {
        graph_options opts;
        opts.fold = f;
        opts.max_boxes = 4;  // small: auto folds whatever has scopes
        opts.initializers = f == graph_fold::none;
        opts.expand_functions = f == graph_fold::repeat || f == graph_fold::none;
        opts.shapes = f == graph_fold::automatic ? graph_options::inference::inferred : graph_options::inference::declared;
        const result<graph_picture> p = draw_graph(m, opts);
        if (!p) {
            // Every graph has a picture, an empty one too.
            FUZZ_CHECK((p.err().code == errc::not_found && !m.has_graph()) || p.err().code == errc::depth_exceeded);
            return 0;
        }
        check_picture(*p);
        // The inside of the first folded box, as the HTML page draws it.
        for (const graph_box& b : p->boxes) {
            if (b.kind != graph_box_kind::scope && b.kind != graph_box_kind::repeat) continue;
            graph_options inside = opts;
            inside.within = b.name;
            const result<graph_picture> q = draw_graph(m, inside);
            FUZZ_CHECK(q.ok());
            if (q) check_picture(*q);
            break;
        }
    }
    // The neighbourhood of the first node (by name, else its first output's value).
    if (m.has_graph()) {
        for (const node_view& n : m.graph().node()) {
            graph_options opts;
            opts.around = std::string(n.name());
            if (opts.around.empty())
                for (std::string_view o : n.output()) {
                    opts.around = std::string(o);
                    break;
                }
            opts.radius = 1;
            if (opts.around.empty()) break;
            const result<graph_picture> p = draw_graph(m, opts);
            FUZZ_CHECK(p.ok() || p.err().code == errc::not_found || p.err().code == errc::depth_exceeded);
            if (p) check_picture(*p);
            break;
        }
    }
    return 0;
}
