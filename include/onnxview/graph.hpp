// onnxview/graph.hpp - a picture of a model's graph, folded to what a person
// can read: the optional library `onnxview_graph` (src/graph/), behind
// `onnxview graph`.
//
//   auto mf = onnxview::model_file::open("net.onnx");
//   auto picture = onnxview::draw_graph(mf->model(), {});  // folded by scope and repeats
//   std::string dot = onnxview::graph_dot(*picture);        // for Graphviz's dot
//
// draw_graph() turns the model into boxes and edges, weights never read:
// a box per node (op type and name), per graph input and output, per
// initializer when asked; the bodies of If, Loop and Scan as clusters inside
// their node's; an edge per value from the box that makes it to each box
// that reads it (a value read from an enclosing graph too), labelled with
// its name and its type (declared, else inferred by the profiler's shape
// rules: graph_options::shapes). Folding then makes a large model readable:
//   - scope: the scopes exporters record - the torch exporter's node
//     metadata, else the `/`-separated scopes of node names
//     (`/model/layers.3/self_attn/q_proj/MatMul`) - cut at `depth` levels,
//     each scope one box with its node count and the parameters its nodes
//     read; nodes without a scope get one from runs of blocks of one
//     structure (`nodes 1-480/block.K`) or from their scoped neighbours;
//   - repeat: consecutive sibling scopes with the same structure (the same
//     operators in the same order, wired the same way) drawn once,
//     `layers.0 - layers.31 x32`; one that differs breaks the run;
//   - automatic: every node when the picture has at most `max_boxes`
//     boxes; else, among the scope levels whose folded picture fits, the one
//     that folds the most scopes into runs, or without runs the deepest one
//     that fits; when none fits, consecutive boxes as ranges; the picture's
//     note says how it was folded.
// docs/graph.md shows the pictures and documents the JSON.
//
// Cost: linear in the model's nodes and values (hash maps of names), plus
// one structural signature per scope and, when inferred, the profiler's
// pass; only the boxes a picture shows become strings; allocation as it
// goes; exceptions are not used. Not in the single header.
#ifndef ONNXVIEW_GRAPH_HPP
#define ONNXVIEW_GRAPH_HPP

#include <cstdint>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "onnxview/error.hpp"
#include "onnxview/model.hpp"

namespace onnxview {

enum class graph_fold : std::uint8_t { none, scope, repeat, automatic };
// "none", "scope", "repeat", "auto"; parse_graph_fold reads the same words.
const char* graph_fold_name(graph_fold f) noexcept;
bool parse_graph_fold(std::string_view word, graph_fold& out) noexcept;

struct graph_options {
    graph_fold fold = graph_fold::automatic;
    // scope and repeat: scopes this many levels deep become boxes (0: the
    // level automatic would choose).
    std::uint32_t depth = 0;
    // automatic: fold until at most this many boxes; when no scope level is
    // that small, consecutive boxes are drawn as ranges of them.
    std::uint64_t max_boxes = 400;
    bool initializers = false;  // draw initializers as boxes (folded into their readers by default)
    // Draw each call of a model-local function as the function's body (a
    // cluster, its values renamed per call; calls inside calls too, 16
    // deep), not as one box. The bodies' own If/Loop/Scan bodies are not
    // drawn.
    bool expand_functions = false;
    // Values without a declared type get the one the profile library's
    // shape rules infer (onnxview/profile.hpp), and node boxes their MACs:
    // automatic does so for models of at most infer_max_nodes nodes (the
    // inference costs about as much as drawing).
    enum class inference : std::uint8_t { declared, inferred, automatic };
    inference shapes = inference::automatic;
    static constexpr std::uint64_t infer_max_nodes = 20000;
    // Not empty: only the neighbourhood of the node of this name (when no
    // node has it, of the boxes that make and read the value of this name),
    // every box at most `radius` edges away, whichever their direction;
    // never folded.
    std::string around;
    std::uint32_t radius = 2;
    // Not empty: only the nodes in this scope (a `/`-separated path such as
    // "model/layers.0", as scope and repeat boxes name it), folded from the
    // next level down; what it reads from and gives to the rest of the
    // graph are input and output boxes named by the value.
    std::string within;
};

// range: consecutive boxes drawn as one because the picture would otherwise
// have more than graph_options::max_boxes (automatic folding only).
enum class graph_box_kind : std::uint8_t { node, input, output, initializer, scope, repeat, range };

struct graph_attribute {
    std::string name;
    std::string value;  // as text, long lists and tensors shortened ("[1, 2, 3, ... 64 values]")
};
const char* graph_box_kind_name(graph_box_kind k) noexcept;  // "node", "input", ...

struct graph_box {
    graph_box_kind kind = graph_box_kind::node;
    std::string id;       // "n12", unique in the picture
    std::string label;    // what the box says, lines separated by '\n'
    std::string op_type;  // node: its op type (domain::op_type outside the default domain)
    std::string name;     // node: its name; input, output, initializer: the value; scope: the scope path
    std::string cluster;  // id of the cluster it sits in ("" for the main graph)
    std::uint64_t nodes = 1;       // nodes it stands for (scope, repeat: all of them)
    std::uint64_t parameters = 0;  // elements of the initializers its nodes read
    std::uint64_t repeats = 1;     // repeat: how many scopes it stands for
    // Multiply-accumulates (the profile library's count, symbolic dims kept:
    // "1048576*N"); scope and repeat boxes: the sum over their nodes. Empty
    // when not inferred or unknown for any of its nodes.
    std::string macs;
    std::vector<graph_attribute> attributes;  // node: its attributes
};

struct graph_edge {
    std::string from, to;  // box ids
    std::string value;     // the value's name (the first, when several are folded into one edge)
    std::string type;      // its type ("FLOAT[N,64]"): declared, else inferred; "" when neither
    bool inferred = false; // the type is the shape rules', not declared
    std::uint64_t values = 1;  // values this edge stands for (folded boxes)
};

// The body of an If, Loop or Scan node (or any graph attribute).
struct graph_cluster {
    std::string id;      // "c3"
    std::string label;   // "Loop 'loop' body"
    std::string parent;  // enclosing cluster ("" for the main graph)
};

struct graph_picture {
    std::vector<graph_box> boxes;
    std::vector<graph_edge> edges;
    std::vector<graph_cluster> clusters;
    std::uint64_t model_nodes = 0;  // nodes of the model (every body included)
    graph_fold fold = graph_fold::none;
    std::uint32_t depth = 0;        // the scope depth folded to (0: none)
    std::string note;               // how it was folded, for the picture's title
};

// The picture of `m`'s main graph. Errors: not_found (no graph, no node or
// value named `around`, no node in the scope `within`), depth_exceeded (bodies nested past max_depth).
result<graph_picture> draw_graph(const model_view& m, const graph_options& opts = {});
// The picture of any graph (a body of If, Loop or Scan, a training graph)
// as draw_graph draws the main one; it reads values of enclosing graphs as
// inputs it does not draw.
result<graph_picture> draw_graph(const graph_view& g, const graph_options& opts = {});

// Graphviz DOT (names escaped: any bytes may stand in a name).
std::string graph_dot(const graph_picture& p);
// JSON, version 1 (docs/graph.md): boxes, edges, clusters, the fold;
// indented, or on one line when `compact`.
std::string graph_json(const graph_picture& p, bool compact = false);
// A Mermaid flowchart.
std::string graph_mermaid(const graph_picture& p);

// Whether this build lays pictures out: graph_svg and graph_html need
// Graphviz's library (libgvc), found at build time like libxxhash.
bool graph_layout_available() noexcept;

// The picture laid out by Graphviz's `dot` as SVG; each box is the SVG
// group (<g class="node">) whose id is the box's, each cluster likewise.
// Errors: unsupported (built without Graphviz), invalid_argument (Graphviz
// refused it); `why`, when given, then says why in words.
result<std::string> graph_svg(const graph_picture& p, std::string* why = nullptr);

// One self-contained HTML page (docs/graph.md): the picture `opts` asks
// for, and the inside of each folded box as a picture of its own (the
// scope alone, folded from the next level down: opts.within), laid out as
// SVG, with their JSON; pan and zoom, search, a box's details on a click,
// and a click on a folded box shows its inside. No network access: the
// script, the styles and the pictures are all in the page. At most
// max_page_pictures pictures (breadth first: the outer ones); a picture of
// more than max_page_layout_boxes boxes has its JSON but no SVG. Errors:
// those of draw_graph and graph_svg.
constexpr std::size_t max_page_pictures = 200;
constexpr std::size_t max_page_layout_boxes = 2000;
result<std::string> graph_html(const model_view& m, const graph_options& opts, std::string_view title,
                               std::string* why = nullptr);

}  // namespace onnxview

#endif  // ONNXVIEW_GRAPH_HPP
