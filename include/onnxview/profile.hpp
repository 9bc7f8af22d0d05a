// onnxview/profile.hpp - parameters, MACs, FLOPs and activation memory of
// every node of a model's main graph, with symbolic shapes, without reading
// a weight.
//
//   onnxview::profile_options opts;
//   opts.dims.push_back({"batch", 1});                 // optional: make dims concrete
//   auto p = onnxview::profile_model(model, opts);
//   if (p) std::printf("MACs %s\n", p->totals.macs.str().c_str());   // "4089184256*N"
//
// Shapes come from the model's value_info, graph inputs and outputs first
// (dim_params substituted from profile_options::dims), then from the shape
// rules of the standard operators (docs/profile.md lists them); the values
// of small integer tensors (initializers and Constant nodes stored inline,
// and what Shape, Gather, Concat, Slice, Unsqueeze and arithmetic make of
// them) are followed so that Reshape, Expand, Tile, Slice and friends get
// their shapes. Dimensions stay polynomials in the dim_param names.
//
// Honesty: a node whose output shape or cost cannot be found has `reason`
// set and its costs unknown; totals add only the nodes whose costs are known
// and say how many are covered. Nothing unknown counts as zero.
//
// Weight-free: tensor payloads are never read, except the values of small
// (at most profile_options::max_value_elements) integer tensors stored in
// the model itself; external data is never opened.
//
// Cost: linear in the graph's metadata, plus the symbolic arithmetic (each
// expression is limited to dim_expr::max_terms terms). Allocates.
//
// Lifetime: the nodes' names, op types, domains and output names are views
// into the model's bytes: a model_profile is valid while the bytes of the
// model it was made from are (keep the model_file or buffer alive until the
// profile is gone). The texts the profile makes itself (scopes, reasons,
// cost bases) are views into its own `texts`, which every copy shares.
//
// Part of the optional library `onnxview_profile` (src/profile/), outside
// the single header.
#ifndef ONNXVIEW_PROFILE_HPP
#define ONNXVIEW_PROFILE_HPP

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "onnxview/error.hpp"
#include "onnxview/model.hpp"
#include "onnxview/sink.hpp"

namespace onnxview {

// One factor of a monomial: a dim name raised to a power (>= 1).
struct dim_factor {
    std::string name;
    std::uint32_t power = 1;
    bool operator==(const dim_factor& o) const { return power == o.power && name == o.name; }
};

// coefficient x product of factors (sorted by name, names distinct).
struct dim_term {
    std::vector<dim_factor> factors;
    std::int64_t coefficient = 0;
};

// A polynomial in named dimensions with int64 coefficients: `N`, `2*seq +
// 1`, `1310720*N*seq^2`. Kept canonical (terms sorted, no zero
// coefficient), so equal polynomials compare equal and print alike. The
// arithmetic below is checked: int64 overflow, more than max_terms terms or
// a degree above max_degree give no value (std::nullopt), never a wrong one.
class dim_expr {
public:
    static constexpr std::size_t max_terms = 64;
    static constexpr std::uint32_t max_degree = 16;

    dim_expr() = default;  // 0
    explicit dim_expr(std::int64_t constant);
    static dim_expr symbol(std::string_view name);

    // No symbol (possibly 0).
    bool is_constant() const noexcept { return terms_ == nullptr; }
    // The term without symbols (0 when absent).
    std::int64_t constant_term() const noexcept { return constant_; }
    // The terms with symbols, in canonical order (the constant is apart, so
    // that a constant dim allocates nothing).
    const std::vector<dim_term>& terms() const noexcept { return terms_ ? *terms_ : no_terms(); }
    // Deterministic text: terms by degree then names, the constant last:
    // "4089184256*N + 1310720*N*seq^2", "2*seq + 1", "0".
    std::string str() const;

    bool operator==(const dim_expr& o) const;
    bool operator!=(const dim_expr& o) const { return !(*this == o); }

    friend std::optional<dim_expr> add(const dim_expr& a, const dim_expr& b);
    friend std::optional<dim_expr> subtract(const dim_expr& a, const dim_expr& b);
    friend std::optional<dim_expr> multiply(const dim_expr& a, const dim_expr& b);
    // a / d when d divides every coefficient; nullopt otherwise (or d == 0).
    friend std::optional<dim_expr> divide_exact(const dim_expr& a, std::int64_t d);

private:
    static const std::vector<dim_term>& no_terms() noexcept;
    std::int64_t constant_ = 0;
    // Shared, never changed once made: a shape's dims are copied from value
    // to value (a 100k-node model copies a symbolic dim over a million
    // times) and a copy is then a reference count, not two allocations.
    // Null when there is no term with a symbol.
    std::shared_ptr<const std::vector<dim_term>> terms_;
    friend struct dim_expr_builder;
};

std::optional<dim_expr> add(const dim_expr& a, const dim_expr& b);
std::optional<dim_expr> subtract(const dim_expr& a, const dim_expr& b);
std::optional<dim_expr> multiply(const dim_expr& a, const dim_expr& b);
std::optional<dim_expr> divide_exact(const dim_expr& a, std::int64_t d);

// How two polynomials compare for every value of their symbols >= 1 (a
// dimension of a tensor that holds anything): `greater_or_equal` when every
// coefficient of a - b is >= 0, or of a - b with each symbol s replaced by
// s + 1; `less_or_equal` likewise with <= 0 (equal polynomials give
// greater_or_equal); `unordered` otherwise (or when a - b overflows).
enum class dim_order : std::uint8_t { greater_or_equal, less_or_equal, unordered };
dim_order compare(const dim_expr& a, const dim_expr& b);

// A count that may be unknown: a dimension, a cost, a size.
struct quantity {
    bool known = false;
    dim_expr value;

    quantity() = default;
    explicit quantity(dim_expr v) : known(true), value(std::move(v)) {}
    explicit quantity(std::int64_t v) : known(true), value(v) {}
    // Known and without symbols.
    bool concrete() const noexcept { return known && value.is_constant(); }
    // value.str(), or "?" when unknown.
    std::string str() const { return known ? value.str() : std::string("?"); }
};

// A value's shape: unknown rank, or one quantity per axis.
struct value_shape {
    bool rank_known = false;
    std::vector<quantity> dims;
    // Rank known and every dim known.
    bool complete() const noexcept;
    // Product of the dims; unknown unless complete (or on overflow).
    quantity element_count() const;
    // "[N,3,224,224]", "[?,3]", "?" (unknown rank).
    std::string str() const;
};

// A dim_param given a value (--dim N=1).
struct dim_binding {
    std::string name;
    std::int64_t value = 0;
};

// A graph input given a concrete shape (--input x=1x1024).
struct input_binding {
    std::string name;
    std::vector<std::int64_t> dims;
};

struct profile_options {
    // dim_params replaced by these values wherever the model names them.
    std::vector<dim_binding> dims;
    // Graph inputs given concrete shapes; the dim_params they declare take
    // the values given at their axes (so other values naming them follow).
    std::vector<input_binding> inputs;
    // Integer tensors up to this many elements have their values followed
    // (shape arithmetic); larger ones only their shapes.
    std::uint32_t max_value_elements = 64;
    // Subgraph nesting accepted by the walk (walk_scopes' max_depth).
    std::uint32_t max_depth = 100;
    // Calls of model-local functions expanded inside one another (a
    // recursive function stops here, its innermost call not covered).
    std::uint32_t max_function_depth = 16;
    // Nodes listed from subgraph bodies and function expansions, all
    // together: past this, further calls are not expanded (a function
    // calling itself twice per level would otherwise double at each level).
    std::size_t max_inner_nodes = 1000000;
};

// One output of a node.
struct profiled_output {
    std::string_view name;  // into the model's bytes
    std::int32_t elem_type = 0;  // DataType; 0 unknown
    value_shape shape;
    quantity bytes;  // at the element type's true bit width, packed
};

// One node: of the main graph, or of a subgraph body (If, Loop, Scan) or a
// model-local function's expansion, listed right after the node holding it
// (walk order: depth-first, each body after its holder). Its texts are
// views (see Lifetime above): a 100k-node profile would otherwise hold
// 600k strings, nearly all of them empty or copies of the model's.
struct node_profile {
    static constexpr std::size_t no_parent = static_cast<std::size_t>(-1);
    std::string_view name;     // into the model's bytes
    std::string_view op_type;  // into the model's bytes
    std::string_view domain;   // into the model's bytes
    // Where an inner node sits: its holders' names (or "#index" when
    // unnamed) and the attribute or function, '/'-joined:
    // "choose_flatten/then_branch", "swish2/onnxview.local::Swish",
    // "outer/body/inner/else_branch". Empty in the main graph. Into
    // model_profile::texts, one copy per scope.
    std::string_view scope;
    // Index in model_profile::nodes of the node whose body or function this
    // node belongs to; no_parent in the main graph. Only the main graph's
    // nodes add to the totals: a holder's cost already counts its bodies.
    std::size_t parent = no_parent;
    std::vector<profiled_output> outputs;
    quantity macs;
    quantity flops;
    // Elements and bytes of the stored tensors (initializers, Constant
    // outputs) this node reads; a tensor read by several nodes counts for
    // each here and once in the totals.
    std::uint64_t params = 0;
    std::uint64_t param_bytes = 0;
    // Empty when the node's shapes and costs are all known; otherwise why
    // not ("op not covered: Loop", "input 'x' has no known shape", ...).
    // Into model_profile::texts, one copy per distinct reason.
    std::string_view reason;
    // How a holder's cost was made from its bodies ("the larger branch:
    // then_branch", "body x 5 iterations (M)"); empty for other nodes. Into
    // model_profile::texts.
    std::string_view cost_basis;
    bool covered() const noexcept { return reason.empty(); }
    bool in_main_graph() const noexcept { return parent == no_parent; }
};

// The texts a profile makes itself, each distinct text stored once: views
// of them stay valid while the pool lives (a stored text never moves).
class profile_texts {
public:
    // A view of the stored copy of `text`, stored on first use; "" is a
    // view of nothing and stores nothing.
    std::string_view intern(std::string_view text);
    // Distinct texts stored.
    std::size_t size() const noexcept { return stored_.size(); }

private:
    std::deque<std::string> stored_;  // a deque: growing never moves an element
    std::unordered_set<std::string_view> index_;
};

struct profile_totals {
    std::uint64_t params = 0;       // unique stored tensors read by nodes (bodies included): elements
    std::uint64_t param_bytes = 0;  // ... and bytes
    quantity macs;                  // sums over the main graph's covered nodes
    quantity flops;
    quantity peak_activation_bytes;
};

struct model_profile {
    std::vector<node_profile> nodes;
    // What the nodes' scope, reason and cost_basis view, filled by
    // profile_model(). Shared by copies of the profile, so that their views
    // stay valid after the original is gone.
    std::shared_ptr<profile_texts> texts = std::make_shared<profile_texts>();
    profile_totals totals;
    std::size_t covered_nodes = 0;  // of all nodes listed
    std::size_t main_graph_nodes = 0;
    std::size_t main_graph_covered = 0;
    // Index in `nodes` of the node after which the live activations peak;
    // nodes.size() when there is none (no node, or the peak is unknown).
    std::size_t peak_node = 0;
    // With symbolic dims the live bytes after two nodes may compare either
    // way (384*N*seq against 4*N*seq^2 + 128*N*seq): then the peak is the
    // maximum of these candidates (none dominated by another, at most
    // max_peak_candidates), peak_activation_bytes is unknown and peak_node
    // is nodes.size(). Empty otherwise.
    static constexpr std::size_t max_peak_candidates = 8;
    struct peak_candidate {
        dim_expr bytes;
        std::size_t node = 0;
    };
    std::vector<peak_candidate> peak_candidates;
    // Why peak_activation_bytes is unknown (empty when known).
    std::string peak_reason;
    // Stored tensors read by more than one node (tied embeddings, shared
    // weights): counted once in the totals, in each reader's `params`.
    struct shared_tensor {
        std::string name;
        std::uint64_t elements = 0;
        std::vector<std::size_t> readers;  // indices in `nodes`, in file order
    };
    std::vector<shared_tensor> shared;
    // Why a stored tensor's size is not counted (external tensor with bad
    // dims and the like), one line each.
    std::vector<std::string> notes;
};

// An aggregate view of a profile: rows summing the main graph's nodes (a
// holder's row already counts its bodies and functions).
enum class profile_grouping : std::uint8_t {
    op,     // by operator type, domain-qualified outside the default domain ("com.microsoft::Attention")
    scope,  // by the scope in the node's name (name_scope())
};
struct profile_group {
    std::string key;  // the op type, or the scope ("" for names without one)
    std::uint64_t nodes = 0;
    std::uint64_t not_covered = 0;
    quantity macs = quantity(std::int64_t{0});  // sums over the group's covered nodes
    quantity flops = quantity(std::int64_t{0});
    std::uint64_t params = 0;  // as the nodes read them (a shared tensor in each reader)
};
// What a group's key is called in reports: "op_type" or "scope".
const char* group_key_name(profile_grouping by) noexcept;
// The rows: by op in the order of their keys, by scope in the order of
// their first node. `scope_depth` keeps the first so many parts of a scope
// (0: all of it). Linear in the nodes (plus the sort of the op keys).
std::vector<profile_group> group_nodes(const model_profile& p, profile_grouping by, std::uint32_t scope_depth = 0);

// The scope exporters write into node names, '/'-separated, without the
// node's own last part and the leading '/': "/encoder/layer.0/attn/MatMul"
// is "encoder/layer.0/attn", its first `depth` parts when depth is not 0
// ("encoder/layer.0" at 2); "" for a name without '/'.
std::string name_scope(std::string_view name, std::uint32_t depth = 0);

// What a report lists besides the totals: one row per node, or the
// groups of group_nodes() too.
struct profile_view {
    bool grouped = false;
    profile_grouping by = profile_grouping::op;
    std::uint32_t scope_depth = 0;
};

// A view as words: "node" (one row per node), "op", "scope", or
// "scope:DEPTH" (DEPTH >= 1: the first so many parts of each scope). False,
// `out` unchanged, for anything else.
bool parse_profile_view(std::string_view by, profile_view& out);

// "max(a, b, ...)" of the peak candidates: the peak when it depends on the
// dims' values (model_profile::peak_candidates).
std::string peak_maximum_text(const model_profile& p);

// Readable numbers for people (the text report; JSON and CSV stay exact).
// Counts: exact below 1000, else three significant digits and a unit of
// 1000: "768", "7.09 M", "1.01 G". Bytes: "512 bytes", "27.0 MiB" (units of
// 1024).
std::string readable_count(std::uint64_t n);
std::string readable_bytes(std::uint64_t n);

// Short names for the dims a report shows: a dim_param that is a short
// identifier (at most 12 letters, digits and '_', not starting with a digit)
// is shown as itself; any other (`p2o.DynamicDimension.0`, a symbol made of
// an expression such as `floor((H - 1)/2)`) gets an alias, N, M, K, L, P,
// Q, R, T, U, V, W, then D1, D2, ..., one not used by another dim.
// A substring match replaces names inside expressions, so a short name
// that is also part of another is written as is there.
class dim_legend {
public:
    // Collects the dims of the totals, the peak and every node's outputs
    // and costs, and gives aliases in the order they are first met.
    explicit dim_legend(const model_profile& p);
    dim_legend() = default;
    // What the report shows for dim `name`.
    std::string_view shown(std::string_view name) const;
    // The place of dim `name` among all the dims collected (the model's
    // dims as first met, then the symbols made of expressions): the order
    // of a term's factors in the report.
    std::size_t rank(std::string_view name) const;
    // `name` with the other aliased names in it written as their aliases:
    // what the legend says an alias stands for ("floor((H - 1)/2)" once H
    // is the alias of a long name).
    std::string described(std::string_view name) const;
    // (alias, name) for each aliased dim, in the order given: the model's
    // dims first, then the symbols made of expressions.
    const std::vector<std::pair<std::string, std::string>>& aliases() const noexcept { return aliases_; }

private:
    std::vector<std::pair<std::string, std::string>> aliases_;
    std::vector<std::string> order_;
};

// A polynomial as the legend names its dims. Exact: every term and exact
// coefficients, highest degree first ("768*batch*seq^2 + 589824*batch*seq").
// Otherwise the leading terms: the first `max_terms` of the terms by degree,
// highest first (of one degree, the larger coefficient first), coefficients as readable_count (or readable_bytes'
// units when `bytes`, "48 B" under 1 KiB), and "+ ..." when terms are left
// out: "1.54 k*batch*seq^2 + 7.08 M*batch*seq". A constant alone is
// readable_count's or readable_bytes' text.
std::string readable_expr(const dim_expr& e, const dim_legend& legend, bool exact, bool bytes = false,
                          std::size_t max_terms = 3);
// readable_expr of a known quantity, "?" of an unknown one.
std::string readable_quantity(const quantity& q, const dim_legend& legend, bool exact, bool bytes = false);
// A shape with exact dims as the legend names them: "[N,3,H,W]", "?".
std::string readable_shape(const value_shape& s, const dim_legend& legend);
// The ordering of the text report's "top ops": by the highest degree of a
// term, then the sum of that degree's coefficients (what grows fastest as
// dims grow, the size for a constant); unknown below everything.
bool grows_faster(const quantity& a, const quantity& b);

// The profile as one JSON object (`onnxview profile --json`; "version": 2,
// docs/profile.md gives every field): totals, coverage, peak, the groups
// when v.grouped, nodes, unknown, shared, notes. Written to `out` in pieces
// of about 1 MiB as it is made (a 100k-node profile is ~60 MB of JSON,
// never held whole); returns the first error `out` gives, after which
// nothing more is written.
error write_profile_json(const model_profile& p, const profile_view& v, const write_sink& out);

// Profiles the main graph of `m`, with the bodies of its If, Loop and Scan
// nodes and the model-local functions its nodes call. Errors: not_found (no graph, or an input
// binding naming no graph input), invalid_argument (a dim binding with an
// empty name, an input binding of the wrong rank, a negative size, or one
// that contradicts the model's dim_value or another binding of the same
// dim_param), depth_exceeded (as walk_scopes()). Everything the model does
// not tell is an unknown in the result, never an error.
result<model_profile> profile_model(const model_view& m, const profile_options& opts = profile_options());

}  // namespace onnxview

#endif  // ONNXVIEW_PROFILE_HPP
