// The put-back of a weight-less proxy (onnxview/rebind.hpp: plan_rebinds;
// write.hpp: edit_options::rebinds) on hand-built models: which tensors of
// a tool's output are bound to which tensor of the original, where the
// references point, every refusal, the tensors left alone, and pack_model
// writing the references. Over 600 lines: one function's rules, each case
// with the models it builds, read best side by side.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "../wire_builder.hpp"
#include "edit_models.hpp"
#include "onnxview/decimal.hpp"
#include "onnxview/model.hpp"
#include "onnxview/rebind.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/traverse.hpp"
#include "onnxview/verify.hpp"
#include "onnxview/write.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

namespace {

using namespace onnxview_test::edit_models;
using field = tensor_view::field;
using dim_list = std::vector<std::uint64_t>;

// `n` little-endian floats from `start` (the test hosts are little-endian).
std::string floats(std::size_t n, float start) {
    std::string s(n * 4, '\0');
    for (std::size_t i = 0; i < n; ++i) {
        const float f = start + static_cast<float>(i);
        std::memcpy(&s[i * 4], &f, 4);
    }
    return s;
}

std::string doubles(std::size_t n, double start) {
    std::string s(n * 8, '\0');
    for (std::size_t i = 0; i < n; ++i) {
        const double d = start + static_cast<double>(i);
        std::memcpy(&s[i * 8], &d, 8);
    }
    return s;
}

// A TensorProto's dims, data type and name (name left out when empty).
wire_builder header(const std::string& name, const dim_list& dims, data_type type = data_type::float32) {
    wire_builder t;
    for (std::uint64_t d : dims) t.field_varint(field::dims, d);
    t.field_varint(field::data_type, static_cast<std::uint64_t>(type));
    if (!name.empty()) t.field_bytes(field::name, name);
    return t;
}

// A tensor without any payload: what a tool leaves of a reference.
wire_builder bare(const std::string& name, const dim_list& dims, data_type type = data_type::float32) {
    return header(name, dims, type);
}

wire_builder with_raw(const std::string& name, const dim_list& dims, const std::string& payload,
                      data_type type = data_type::float32) {
    return header(name, dims, type).field_bytes(field::raw_data, payload);
}

// A typed field `number` holding `bytes` as one packed run.
wire_builder with_typed(const std::string& name, const dim_list& dims, data_type type, std::uint32_t number,
                        const std::string& bytes) {
    return header(name, dims, type).field_bytes(number, bytes);
}

wire_builder entry(const std::string& key, const std::string& value) {
    wire_builder e;
    e.field_bytes(1, key).field_bytes(2, value);
    return e;
}

// data_location EXTERNAL with the given entries (an empty value: no entry).
wire_builder external(const std::string& name, const dim_list& dims, const std::string& location,
                      const std::string& offset, const std::string& length) {
    wire_builder t = header(name, dims);
    if (!location.empty()) t.field_message(field::external_data, entry("location", location));
    if (!offset.empty()) t.field_message(field::external_data, entry("offset", offset));
    if (!length.empty()) t.field_message(field::external_data, entry("length", length));
    t.field_varint(field::data_location, 1);
    return t;
}

// A node with one tensor attribute `attr` (t), or several (tensors).
wire_builder tensor_node(const std::string& op, const std::string& output, const std::string& attr,
                         const std::vector<wire_builder>& tensors, bool repeated = false) {
    wire_builder a;
    a.field_bytes(1, attr);
    for (const wire_builder& t : tensors) a.field_message(repeated ? 10 : 5, t);
    a.field_varint(20, repeated ? 9 : 4);  // TENSORS, TENSOR
    return node(op, {}, {output}).field_message(5, a);
}

wire_builder constant(const std::string& output, const wire_builder& t) {
    return tensor_node("Constant", output, "value", {t});
}

wire_builder graph(const std::vector<wire_builder>& initializers, const std::vector<wire_builder>& nodes = {},
                   const std::string& name = "g") {
    wire_builder g;
    for (const wire_builder& n : nodes) g.field_message(1, n);
    g.field_bytes(2, name);
    for (const wire_builder& t : initializers) g.field_message(5, t);
    return g;
}

// An If node making `output` with a then_branch (and an else_branch when given).
wire_builder if_node(const std::string& output, const wire_builder& then_branch,
                     const wire_builder* else_branch = nullptr) {
    wire_builder n = with_graph(node("If", {"cond"}, {output}), "then_branch", then_branch);
    if (else_branch != nullptr) n = with_graph(n, "else_branch", *else_branch);
    return n;
}

// Where `bytes` lies in `in`, which holds it once.
std::uint64_t unique_at(const std::string& in, const std::string& bytes) {
    const std::size_t at = in.find(bytes);
    REQUIRE(at != std::string::npos);
    REQUIRE(in.find(bytes, at + 1) == std::string::npos);
    return at;
}

// Where the content of the tensor named `name` (the k-th so named) starts,
// as the views see it.
std::uint64_t tensor_at(const std::string& model_bytes, std::string_view name, std::size_t k = 0) {
    const model_view m = parse_model(model_bytes.data(), model_bytes.size());
    std::vector<std::uint64_t> found;
    const error e = for_each_tensor(m, [&](const stored_tensor& st) {
        if (st.tensor.name() == name) {
            const wire::message& w = st.tensor.wire_message();
            found.push_back(w.offset_of(w.begin()));
        }
    });
    REQUIRE(e.ok());
    REQUIRE(found.size() > k);
    return found[k];
}

struct planned {
    error err;
    rebind_plan plan;
};

planned plan(const std::string& proxy, const std::string& original, std::string_view location = "big.onnx",
             const std::vector<value_rename>& renames = {}) {
    planned p;
    p.err = plan_rebinds(parse_model(proxy.data(), proxy.size()), parse_model(original.data(), original.size()),
                         location, renames.data(), renames.size(), p.plan);
    return p;
}

// The refusals as "name: why".
std::vector<std::string> refusals(const rebind_plan& p) {
    std::vector<std::string> out;
    for (const rebind_problem& r : p.refused) out.push_back(r.name + ": " + rebind_refusal_name(r.why));
    return out;
}

struct packed {
    error err;
    std::string model;
    pack_stats stats;
};

packed pack_with(const std::string& in, const std::vector<tensor_rebind>& rebinds, edit_options edits = {}) {
    packed out;
    edits.rebinds = rebinds.data();
    edits.rebind_count = rebinds.size();
    pack_options po{};
    po.inline_align = 1;
    po.keep_typed = true;
    po.edits = &edits;
    out.err = pack_model(in, nullptr, po, write_sink{&out.model, append}, nullptr, &out.stats);
    return out;
}

// The tensors of a model, in walk order.
std::vector<tensor_view> tensors_of(const std::string& bytes) {
    std::vector<tensor_view> out;
    const error e =
        for_each_tensor(parse_model(bytes.data(), bytes.size()), [&](const stored_tensor& st) { out.push_back(st.tensor); });
    REQUIRE(e.ok());
    return out;
}

// How often field `number` occurs in a tensor's message.
unsigned occurrences(const tensor_view& t, std::uint32_t number) {
    const wire::message& m = t.wire_message();
    wire::reader r(m.base(), m.begin(), m.end(), m.depth(), m.max_depth());
    unsigned n = 0;
    wire::field f;
    while (!r.at_end()) {
        REQUIRE(r.next(f).ok());
        if (f.number == number) ++n;
    }
    return n;
}

// A main graph whose subgraphs nest `levels` deep (If nodes in If bodies).
wire_builder nested(unsigned levels) {
    wire_builder g = graph({}, {}, "leaf");
    for (unsigned i = 0; i < levels; ++i) g = graph({}, {if_node("y" + std::to_string(i), g)});
    return g;
}

}  // namespace

TEST_CASE("rebind: a tensor without a payload binds by name to the original's raw_data") {
    const std::string payload = floats(6, 1.5f);
    const std::string original = model(graph({with_raw("w", {2, 3}, payload)}));
    const wire_builder proxy_w = bare("w", {2, 3});
    const std::string proxy = model(graph({proxy_w}));

    const std::string location = "big.onnx";
    const planned p = plan(proxy, original, location);
    REQUIRE(p.err.ok());
    CHECK(p.plan.missing() == 1);
    CHECK(p.plan.refused.empty());
    REQUIRE(p.plan.bound.size() == 1);
    CHECK(p.plan.bound[0].name == "w");
    CHECK(p.plan.bound[0].original_name == "w");
    CHECK(p.plan.bound[0].match == rebind_match::name);
    REQUIRE(p.plan.rebinds.size() == 1);
    const tensor_rebind& r = p.plan.rebinds[0];
    // Where the proxy tensor's content starts: found in the bytes, and as the views see it.
    CHECK(r.tensor == unique_at(proxy, proxy_w.str()));
    CHECK(r.tensor == tensor_at(proxy, "w"));
    CHECK(r.location == "big.onnx");
    CHECK(r.offset == unique_at(original, payload));
    CHECK(r.length == 24);
    CHECK(original.substr(r.offset, r.length) == payload);

    // Another original_location is passed through as it is.
    const planned q = plan(proxy, original, "../elsewhere/model.onnx");
    REQUIRE(q.err.ok());
    REQUIRE(q.plan.rebinds.size() == 1);
    CHECK(q.plan.rebinds[0].location == "../elsewhere/model.onnx");

    // A scalar (no dims: one element) has a payload to bind too.
    const std::string scalar = floats(1, 7.0f);
    const std::string original_scalar = model(graph({with_raw("k", {}, scalar)}));
    const std::string proxy_scalar = model(graph({bare("k", {})}));
    const planned s = plan(proxy_scalar, original_scalar);
    REQUIRE(s.err.ok());
    REQUIRE(s.plan.rebinds.size() == 1);
    CHECK(s.plan.rebinds[0].offset == unique_at(original_scalar, scalar));
    CHECK(s.plan.rebinds[0].length == 4);
}

TEST_CASE("rebind: bound in the proxy's walk order, rebinds sorted by where the tensor lies") {
    // In the bytes the Constant node comes first; the walk visits the initializers first.
    const std::string pa = floats(6, 10.0f), pb = floats(6, 20.0f), pc = floats(6, 30.0f);
    wire_builder og;
    og.field_message(1, constant("c", with_raw("", {2, 3}, pc)))
        .field_bytes(2, "g")
        .field_message(5, with_raw("b", {2, 3}, pb))
        .field_message(5, with_raw("a", {2, 3}, pa));
    const std::string original = model(og);
    wire_builder pg;
    pg.field_message(1, constant("c", bare("", {2, 3})))
        .field_bytes(2, "g")
        .field_message(5, bare("b", {2, 3}))
        .field_message(5, bare("a", {2, 3}));
    const std::string proxy = model(pg);

    const planned p = plan(proxy, original);
    REQUIRE(p.err.ok());
    CHECK(p.plan.refused.empty());
    REQUIRE(p.plan.bound.size() == 3);
    CHECK(p.plan.bound[0].name == "b");
    CHECK(p.plan.bound[1].name == "a");
    CHECK(p.plan.bound[2].name == "(attribute value of the node making c)");
    CHECK(p.plan.bound[2].original_name == "(attribute value of the node making c)");
    REQUIRE(p.plan.rebinds.size() == 3);
    CHECK(p.plan.rebinds[0].tensor < p.plan.rebinds[1].tensor);
    CHECK(p.plan.rebinds[1].tensor < p.plan.rebinds[2].tensor);
    CHECK(p.plan.rebinds[0].tensor == tensor_at(proxy, ""));  // the unnamed Constant value
    CHECK(p.plan.rebinds[0].offset == unique_at(original, pc));
    CHECK(p.plan.rebinds[1].tensor == tensor_at(proxy, "b"));
    CHECK(p.plan.rebinds[1].offset == unique_at(original, pb));
    CHECK(p.plan.rebinds[2].tensor == tensor_at(proxy, "a"));
    CHECK(p.plan.rebinds[2].offset == unique_at(original, pa));
}

TEST_CASE("rebind: float_data and double_data in one packed run are referable; other typed fields are not") {
    const std::string fl = floats(6, 2.5f), db = doubles(6, 3.25);
    std::string varints;
    for (int i = 1; i <= 6; ++i) varints += wire_builder::varint_bytes(static_cast<std::uint64_t>(i * 3));
    wire_builder two_runs = header("split", {2, 3});
    two_runs.field_bytes(field::float_data, fl.substr(0, 12)).field_bytes(field::float_data, fl.substr(12));
    wire_builder unpacked = header("unpacked", {2, 3});
    unpacked.unpacked_fixed32(field::float_data, {1, 2, 3, 4, 5, 6});
    const std::string original = model(graph({
        with_typed("f", {2, 3}, data_type::float32, field::float_data, fl),
        with_typed("d", {2, 3}, data_type::float64, field::double_data, db),
        with_typed("i32", {2, 3}, data_type::int32, field::int32_data, varints),
        with_typed("i64", {2, 3}, data_type::int64, field::int64_data, varints),
        two_runs,
        unpacked,
    }));
    const std::string proxy = model(graph({
        bare("f", {2, 3}),
        bare("d", {2, 3}, data_type::float64),
        bare("i32", {2, 3}, data_type::int32),
        bare("i64", {2, 3}, data_type::int64),
        bare("split", {2, 3}),
        bare("unpacked", {2, 3}),
    }));

    const planned p = plan(proxy, original);
    REQUIRE(p.err.ok());
    CHECK(p.plan.missing() == 6);
    REQUIRE(p.plan.bound.size() == 2);
    CHECK(p.plan.bound[0].name == "f");
    CHECK(p.plan.bound[1].name == "d");
    REQUIRE(p.plan.rebinds.size() == 2);
    CHECK(p.plan.rebinds[0].tensor == tensor_at(proxy, "f"));
    CHECK(p.plan.rebinds[0].offset == unique_at(original, fl));  // the packed run's payload
    CHECK(p.plan.rebinds[0].length == 24);
    CHECK(p.plan.rebinds[1].tensor == tensor_at(proxy, "d"));
    CHECK(p.plan.rebinds[1].offset == unique_at(original, db));
    CHECK(p.plan.rebinds[1].length == 48);
    CHECK(refusals(p.plan) == std::vector<std::string>{"i32: not_referable", "i64: not_referable",
                                                       "split: not_referable", "unpacked: not_referable"});
    REQUIRE(p.plan.refused.size() == 4);
    CHECK(p.plan.refused[0].detail == "INT32 [2, 3] in the original's 'i32'");
    CHECK(p.plan.refused[1].detail == "INT64 [2, 3] in the original's 'i64'");
}

TEST_CASE("rebind: an external original tensor lends its own location, offset and length") {
    const std::string original = model(graph({
        external("w", {2, 3}, "weights.bin", "4096", "24"),
        external("no_offset", {2, 3}, "weights.bin", "", "24"),
        external("no_location", {2, 3}, "", "128", "24"),
    }));
    const std::string proxy = model(graph({bare("w", {2, 3}), bare("no_offset", {2, 3}), bare("no_location", {2, 3})}));
    const planned p = plan(proxy, original, "big.onnx");
    REQUIRE(p.err.ok());
    REQUIRE(p.plan.bound.size() == 2);
    CHECK(p.plan.bound[0].name == "w");
    CHECK(p.plan.bound[1].name == "no_offset");
    REQUIRE(p.plan.rebinds.size() == 2);
    const tensor_rebind& r = p.plan.rebinds[0];
    CHECK(r.tensor == tensor_at(proxy, "w"));
    CHECK(r.location == "weights.bin");
    // A view into the original's bytes, as the header says.
    CHECK(r.location.data() >= original.data());
    CHECK(r.location.data() + r.location.size() <= original.data() + original.size());
    CHECK(r.offset == 4096);
    CHECK(r.length == 24);
    CHECK(p.plan.rebinds[1].tensor == tensor_at(proxy, "no_offset"));
    CHECK(p.plan.rebinds[1].location == "weights.bin");
    CHECK(p.plan.rebinds[1].offset == 0);
    CHECK(p.plan.rebinds[1].length == 24);
    // No location entry: nothing to name.
    CHECK(refusals(p.plan) == std::vector<std::string>{"no_location: not_referable"});
}

TEST_CASE("rebind: refusals for other dims, another data type, no match, and a payload that cannot be referenced") {
    std::string varints;
    for (int i = 0; i < 6; ++i) varints += wire_builder::varint_bytes(static_cast<std::uint64_t>(i + 1));
    const std::string original = model(graph({
        with_raw("s", {2, 3}, floats(6, 1.0f)),
        with_raw("t", {2, 3}, floats(6, 2.0f)),
        with_raw("both", {2, 3}, floats(6, 3.0f)),
        with_typed("v", {2, 3}, data_type::int32, field::int32_data, varints),
        with_raw("rank", {6}, floats(6, 4.0f)),
    }));
    const std::string proxy = model(graph({
        bare("s", {3, 2}),
        bare("t", {2, 3}, data_type::float64),
        bare("u", {2, 3}),
        bare("v", {2, 3}, data_type::int32),
        bare("both", {3, 2}, data_type::float64),
        bare("rank", {2, 3}),
    }));
    const planned p = plan(proxy, original);
    REQUIRE(p.err.ok());
    CHECK(p.plan.bound.empty());
    CHECK(p.plan.rebinds.empty());
    CHECK(p.plan.missing() == 6);
    CHECK(refusals(p.plan) == std::vector<std::string>{"s: shape_differs", "t: type_differs", "u: no_match",
                                                       "v: not_referable", "both: type_differs",
                                                       "rank: shape_differs"});
    REQUIRE(p.plan.refused.size() == 6);
    const std::string& shape = p.plan.refused[0].detail;
    CHECK(shape.find("FLOAT [3, 2] here") != std::string::npos);
    CHECK(shape.find("FLOAT [2, 3]") != std::string::npos);
    CHECK(shape == "FLOAT [3, 2] here, FLOAT [2, 3] in the original's 's'");
    CHECK(p.plan.refused[1].detail == "DOUBLE [2, 3] here, FLOAT [2, 3] in the original's 't'");
    CHECK(p.plan.refused[2].detail == "FLOAT [2, 3]");
    CHECK(p.plan.refused[3].detail == "INT32 [2, 3] in the original's 'v'");
    CHECK(p.plan.refused[4].detail == "DOUBLE [3, 2] here, FLOAT [2, 3] in the original's 'both'");
    CHECK(p.plan.refused[5].detail == "FLOAT [2, 3] here, FLOAT [6] in the original's 'rank'");
}

TEST_CASE("rebind: by structure, through the caller's renames and Identity chains") {
    const std::string pw = floats(6, 5.0f);
    const std::string original = model(graph({with_raw("w", {2, 3}, pw), with_raw("x", {2, 3}, floats(6, 6.0f))}));

    SECTION("a renamed initializer") {
        const std::string proxy = model(graph({bare("w2", {2, 3})}));
        const planned none = plan(proxy, original);
        REQUIRE(none.err.ok());
        CHECK(refusals(none.plan) == std::vector<std::string>{"w2: no_match"});

        const planned p = plan(proxy, original, "big.onnx", {{"w", "w2"}});
        REQUIRE(p.err.ok());
        CHECK(p.plan.refused.empty());
        REQUIRE(p.plan.bound.size() == 1);
        CHECK(p.plan.bound[0].name == "w2");
        CHECK(p.plan.bound[0].original_name == "w");
        CHECK(p.plan.bound[0].match == rebind_match::structure);
        REQUIRE(p.plan.rebinds.size() == 1);
        CHECK(p.plan.rebinds[0].tensor == tensor_at(proxy, "w2"));
        CHECK(p.plan.rebinds[0].offset == unique_at(original, pw));
        CHECK(p.plan.rebinds[0].length == 24);
    }
    SECTION("the value a tool put Identity nodes before") {
        const std::string proxy = model(graph(
            {bare("w2", {2, 3})}, {node("Identity", {"w2"}, {"w_mid"}), node("Identity", {"w_mid"}, {"w_id"})}));
        const planned p = plan(proxy, original, "big.onnx", {{"w", "w_id"}});
        REQUIRE(p.err.ok());
        CHECK(p.plan.refused.empty());
        REQUIRE(p.plan.bound.size() == 1);
        CHECK(p.plan.bound[0].name == "w2");
        CHECK(p.plan.bound[0].original_name == "w");
        CHECK(p.plan.bound[0].match == rebind_match::structure);
        REQUIRE(p.plan.rebinds.size() == 1);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, pw));

        // Another operator ends the chain.
        const std::string relu = model(graph({bare("w2", {2, 3})}, {node("Relu", {"w2"}, {"w_id"})}));
        const planned q = plan(relu, original, "big.onnx", {{"w", "w_id"}});
        REQUIRE(q.err.ok());
        CHECK(refusals(q.plan) == std::vector<std::string>{"w2: no_match"});
        // So does an Identity of another domain.
        const std::string foreign =
            model(graph({bare("w2", {2, 3})}, {node("Identity", {"w2"}, {"w_id"}, "com.example")}));
        const planned f = plan(foreign, original, "big.onnx", {{"w", "w_id"}});
        REQUIRE(f.err.ok());
        CHECK(refusals(f.plan) == std::vector<std::string>{"w2: no_match"});
    }
    SECTION("a name match comes before the renames") {
        const std::string proxy = model(graph({bare("w", {2, 3})}));
        const planned p = plan(proxy, original, "big.onnx", {{"x", "w"}});
        REQUIRE(p.err.ok());
        REQUIRE(p.plan.bound.size() == 1);
        CHECK(p.plan.bound[0].original_name == "w");
        CHECK(p.plan.bound[0].match == rebind_match::name);
        REQUIRE(p.plan.rebinds.size() == 1);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, pw));
    }
    SECTION("a rename of a value that is not a tensor of the original finds nothing") {
        const std::string proxy = model(graph({bare("w2", {2, 3})}));
        const planned p = plan(proxy, original, "big.onnx", {{"not_there", "w2"}});
        REQUIRE(p.err.ok());
        CHECK(refusals(p.plan) == std::vector<std::string>{"w2: no_match"});
    }
}

TEST_CASE("rebind: by structure, several candidates: ambiguous, unless the data type and dims single one out") {
    const std::string pa = floats(6, 1.0f), pb = floats(6, 100.0f);
    const std::vector<value_rename> both{{"a", "t"}, {"b", "t"}};

    SECTION("two of the same type and dims") {
        const std::string original = model(graph({with_raw("a", {2, 3}, pa), with_raw("b", {2, 3}, pb)}));
        const std::string proxy = model(graph({bare("t", {2, 3})}));
        const planned p = plan(proxy, original, "big.onnx", both);
        REQUIRE(p.err.ok());
        CHECK(p.plan.bound.empty());
        CHECK(p.plan.rebinds.empty());
        CHECK(refusals(p.plan) == std::vector<std::string>{"t: ambiguous"});
        REQUIRE(p.plan.refused.size() == 1);
        CHECK(p.plan.refused[0].detail == "'a' and 'b'");
    }
    SECTION("only one with the tensor's dims") {
        const std::string original = model(graph({with_raw("a", {2, 3}, pa), with_raw("b", {3, 2}, pb)}));
        const std::string proxy = model(graph({bare("t", {3, 2})}));
        const planned p = plan(proxy, original, "big.onnx", both);
        REQUIRE(p.err.ok());
        CHECK(p.plan.refused.empty());
        REQUIRE(p.plan.bound.size() == 1);
        CHECK(p.plan.bound[0].original_name == "b");
        CHECK(p.plan.bound[0].match == rebind_match::structure);
        REQUIRE(p.plan.rebinds.size() == 1);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, pb));
    }
    SECTION("only one with the tensor's data type") {
        const std::string db = doubles(6, 9.0);
        const std::string original =
            model(graph({with_raw("a", {2, 3}, pa), with_raw("b", {2, 3}, db, data_type::float64)}));
        const std::string proxy = model(graph({bare("t", {2, 3}, data_type::float64)}));
        const planned p = plan(proxy, original, "big.onnx", both);
        REQUIRE(p.err.ok());
        REQUIRE(p.plan.bound.size() == 1);
        CHECK(p.plan.bound[0].original_name == "b");
        REQUIRE(p.plan.rebinds.size() == 1);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, db));
        CHECK(p.plan.rebinds[0].length == 48);
    }
    SECTION("none fits: the candidate's difference is told") {
        const std::string original = model(graph({with_raw("a", {6}, pa)}));
        const std::string proxy = model(graph({bare("t", {2, 3})}));
        const planned p = plan(proxy, original, "big.onnx", {{"a", "t"}});
        REQUIRE(p.err.ok());
        CHECK(refusals(p.plan) == std::vector<std::string>{"t: shape_differs"});
        REQUIRE(p.plan.refused.size() == 1);
        CHECK(p.plan.refused[0].detail == "FLOAT [2, 3] here, FLOAT [6] in the original's 'a'");
    }
    SECTION("two candidates sharing one payload are one") {
        const std::string original = model(graph({external("a", {2, 3}, "weights.bin", "64", "24"),
                                                  external("b", {2, 3}, "weights.bin", "64", "24")}));
        const std::string proxy = model(graph({bare("t", {2, 3})}));
        const planned p = plan(proxy, original, "big.onnx", both);
        REQUIRE(p.err.ok());
        CHECK(p.plan.refused.empty());
        REQUIRE(p.plan.rebinds.size() == 1);
        CHECK(p.plan.rebinds[0].location == "weights.bin");
        CHECK(p.plan.rebinds[0].offset == 64);
    }
}

TEST_CASE("rebind: a node's unnamed tensor attribute binds to the same attribute of the node making the same value") {
    const std::string pc = floats(6, 11.0f), p0 = floats(6, 12.0f), p1 = floats(6, 13.0f);
    const std::string original = model(graph(
        {}, {constant("c", with_raw("", {2, 3}, pc)),
             tensor_node("Custom", "m", "vals", {with_raw("", {2, 3}, p0), with_raw("", {2, 3}, p1)}, true)}));

    SECTION("the same maker") {
        const std::string proxy =
            model(graph({}, {constant("c", bare("", {2, 3})),
                             tensor_node("Custom", "m", "vals", {with_raw("", {2, 3}, p0), bare("", {2, 3})}, true)}));
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        CHECK(p.plan.refused.empty());
        REQUIRE(p.plan.bound.size() == 2);
        CHECK(p.plan.bound[0].name == "(attribute value of the node making c)");
        CHECK(p.plan.bound[0].match == rebind_match::name);
        CHECK(p.plan.bound[1].name == "(attribute vals#1 of the node making m)");
        CHECK(p.plan.bound[1].original_name == "(attribute vals#1 of the node making m)");
        REQUIRE(p.plan.rebinds.size() == 2);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, pc));
        CHECK(p.plan.rebinds[1].offset == unique_at(original, p1));  // the second entry, not the first
    }
    SECTION("a maker the renames name") {
        const std::string proxy = model(graph({}, {constant("c2", bare("", {2, 3}))}));
        const planned none = plan(proxy, original);
        REQUIRE(none.err.ok());
        CHECK(refusals(none.plan) == std::vector<std::string>{"(attribute value of the node making c2): no_match"});

        const planned p = plan(proxy, original, "big.onnx", {{"c", "c2"}});
        REQUIRE(p.err.ok());
        REQUIRE(p.plan.bound.size() == 1);
        CHECK(p.plan.bound[0].name == "(attribute value of the node making c2)");
        CHECK(p.plan.bound[0].original_name == "(attribute value of the node making c)");
        CHECK(p.plan.bound[0].match == rebind_match::structure);
        REQUIRE(p.plan.rebinds.size() == 1);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, pc));
    }
    SECTION("another attribute name of the same maker finds nothing") {
        const std::string proxy = model(graph({}, {tensor_node("Constant", "c", "other", {bare("", {2, 3})})}));
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        CHECK(refusals(p.plan) == std::vector<std::string>{"(attribute other of the node making c): no_match"});
    }
}

TEST_CASE("rebind: tensors with a payload and payload-less tensors without elements are left alone") {
    std::string varints;
    for (int i = 0; i < 6; ++i) varints += wire_builder::varint_bytes(1);
    wire_builder strings = header("names", {2}, data_type::string);  // STRING: no raw layout, never considered
    const std::string proxy = model(graph({
        with_raw("p", {2, 3}, floats(6, 1.0f)),
        with_typed("i", {2, 3}, data_type::int32, field::int32_data, varints),
        external("e", {2, 3}, "weights.bin", "0", "24"),
        bare("z", {0}),
        bare("z2", {4, 0, 2}),
        strings,
    }));
    // The original has payload-less tensors of those names: nothing asks for them.
    const std::string original = model(graph({with_raw("z", {0}, ""), with_raw("p", {2, 3}, floats(6, 2.0f)),
                                              with_raw("sp", {2}, floats(2, 5.0f)),
                                              with_raw("spi", {2}, std::string(16, '\1'), data_type::int64)}));
    const planned p = plan(proxy, original);
    REQUIRE(p.err.ok());
    CHECK(p.plan.missing() == 0);
    CHECK(p.plan.bound.empty());
    CHECK(p.plan.refused.empty());
    CHECK(p.plan.rebinds.empty());

    // Sparse tensors, their values and indices without a payload: not considered,
    // though the original has dense tensors of those names that would fit.
    wire_builder sparse;
    sparse.field_message(1, bare("sp", {2})).field_message(2, bare("spi", {2}, data_type::int64));
    sparse.field_varint(3, 8);
    wire_builder sparse_graph = graph({});
    sparse_graph.field_message(15, sparse);
    const std::string sparse_proxy = model(sparse_graph);
    std::size_t seen = 0;
    REQUIRE(for_each_tensor(parse_model(sparse_proxy.data(), sparse_proxy.size()), [&](const stored_tensor& st) {
                seen += st.sparse_part ? 1 : 0;
            }).ok());
    CHECK(seen == 2);
    const planned sp = plan(sparse_proxy, original);
    REQUIRE(sp.err.ok());
    CHECK(sp.plan.missing() == 0);
    CHECK(sp.plan.rebinds.empty());

    // A payload-less tensor of a data type that is no data type is still refused, not skipped.
    const std::string unknown_type = model(graph({bare("u", {2}, static_cast<data_type>(1000))}));
    const planned u = plan(unknown_type, original);
    REQUIRE(u.err.ok());
    CHECK(refusals(u.plan) == std::vector<std::string>{"u: no_match"});
    REQUIRE(u.plan.refused.size() == 1);
    CHECK(u.plan.refused[0].detail == "data type 1000 [2]");
}

TEST_CASE("rebind: a proxy with nothing missing never walks the original") {
    const std::string proxy_complete = model(graph({with_raw("w", {2, 3}, floats(6, 1.0f))}));
    const std::string proxy_missing = model(graph({bare("w", {2, 3})}));

    // An empty original: a ModelProto without fields.
    const std::string empty;
    const model_view nothing = parse_model(empty.data(), empty.size());
    REQUIRE(nothing.ok());
    rebind_plan out;
    out.refused.push_back({"stale", rebind_refusal::ambiguous, ""});  // the plan starts afresh
    CHECK(plan_rebinds(parse_model(proxy_complete.data(), proxy_complete.size()), nothing, "big.onnx", nullptr, 0, out)
              .ok());
    CHECK(out.missing() == 0);
    CHECK(out.rebinds.empty());
    CHECK(plan_rebinds(parse_model(proxy_missing.data(), proxy_missing.size()), nothing, "big.onnx", nullptr, 0, out)
              .ok());
    CHECK(refusals(out) == std::vector<std::string>{"w: no_match"});

    // An original whose walk fails (subgraphs nested deeper than the walk's
    // limit, readable with a larger message depth): only a proxy with a
    // tensor to bind walks it.
    const std::string deep = model(nested(102));
    options o{};
    o.max_message_depth = 2000;
    const model_view deep_view = parse_model(deep.data(), deep.size(), o);
    REQUIRE(deep_view.ok());
    CHECK(plan_rebinds(parse_model(proxy_complete.data(), proxy_complete.size()), deep_view, "big.onnx", nullptr, 0,
                       out)
              .ok());
    CHECK(out.missing() == 0);
    const error e =
        plan_rebinds(parse_model(proxy_missing.data(), proxy_missing.size()), deep_view, "big.onnx", nullptr, 0, out);
    CHECK(e.code == errc::depth_exceeded);
    // A proxy whose own walk fails.
    const error f = plan_rebinds(deep_view, parse_model(proxy_missing.data(), proxy_missing.size()), "big.onnx",
                                 nullptr, 0, out);
    CHECK(f.code == errc::depth_exceeded);
}

TEST_CASE("rebind: several original tensors of one name are told apart by the scope") {
    const std::string main_w = floats(6, 1.0f), then_w = floats(6, 50.0f), else_w = floats(6, 90.0f);
    const wire_builder then_g = graph({with_raw("w", {2, 3}, then_w)}, {}, "then");
    const wire_builder else_g = graph({with_raw("w", {2, 3}, else_w)}, {}, "else");

    SECTION("the main graph's and an If branch's") {
        const std::string original = model(graph({with_raw("w", {2, 3}, main_w)}, {if_node("y", then_g)}));
        const std::string proxy =
            model(graph({bare("w", {2, 3})}, {if_node("y", graph({bare("w", {2, 3})}, {}, "then"))}));
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        CHECK(p.plan.refused.empty());
        REQUIRE(p.plan.bound.size() == 2);
        REQUIRE(p.plan.rebinds.size() == 2);
        // The walk meets the main graph's tensor first; in the bytes the If node lies before it.
        const std::uint64_t main_at = tensor_at(proxy, "w", 0), branch_at = tensor_at(proxy, "w", 1);
        REQUIRE(branch_at < main_at);
        CHECK(p.plan.rebinds[0].tensor == branch_at);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, then_w));
        CHECK(p.plan.rebinds[1].tensor == main_at);
        CHECK(p.plan.rebinds[1].offset == unique_at(original, main_w));

        // Only the main graph's left without a payload.
        const std::string main_only = model(graph({bare("w", {2, 3})}, {if_node("y", then_g)}));
        const planned m = plan(main_only, original);
        REQUIRE(m.err.ok());
        REQUIRE(m.plan.rebinds.size() == 1);
        CHECK(m.plan.rebinds[0].offset == unique_at(original, main_w));
    }
    SECTION("one tensor of that name, in a branch, binds from anywhere") {
        const std::string original = model(graph({}, {if_node("y", then_g)}));
        const std::string proxy = model(graph({bare("w", {2, 3})}));
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        REQUIRE(p.plan.rebinds.size() == 1);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, then_w));
    }
    SECTION("two branches and no scope to decide: ambiguous") {
        const std::string original = model(graph({}, {if_node("y", then_g, &else_g)}));
        const std::string proxy = model(graph({bare("w", {2, 3})}));
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        CHECK(refusals(p.plan) == std::vector<std::string>{"w: ambiguous"});
        REQUIRE(p.plan.refused.size() == 1);
        CHECK(p.plan.refused[0].detail == "'w' and 'w'");

        // In the else branch of the proxy: the else branch's.
        const wire_builder bare_else = graph({bare("w", {2, 3})}, {}, "else");
        const std::string in_else = model(graph({}, {if_node("y", graph({}, {}, "then"), &bare_else)}));
        const planned e = plan(in_else, original);
        REQUIRE(e.err.ok());
        CHECK(e.plan.refused.empty());
        REQUIRE(e.plan.rebinds.size() == 1);
        CHECK(e.plan.rebinds[0].offset == unique_at(original, else_w));
    }
}

TEST_CASE("rebind: regressions: one name in two places, told apart by node and by holder") {
    const std::string first = floats(6, 1.0f), second = floats(6, 40.0f);
    SECTION("two Constants' tensors both named 'value' (what exporters write), the converter's output") {
        const std::string original =
            model(graph({}, {constant("c1", with_raw("value", {2, 3}, first)), constant("c2", with_raw("value", {2, 3}, second))}));
        const std::string proxy = model(graph({}, {constant("c1", bare("value", {2, 3})), constant("c2", bare("value", {2, 3}))}));
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        CHECK(p.plan.refused.empty());
        REQUIRE(p.plan.rebinds.size() == 2);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, first));
        CHECK(p.plan.rebinds[1].offset == unique_at(original, second));
        // The Constants' outputs prefixed by a tool: told apart through the renames.
        const std::string prefixed =
            model(graph({}, {constant("p_c1", bare("value", {2, 3})), constant("p_c2", bare("value", {2, 3}))}));
        const planned r = plan(prefixed, original, "big.onnx", {{"c1", "p_c1"}, {"c2", "p_c2"}});
        REQUIRE(r.err.ok());
        CHECK(r.plan.refused.empty());
        REQUIRE(r.plan.rebinds.size() == 2);
        CHECK(r.plan.rebinds[0].offset == unique_at(original, first));
        CHECK(r.plan.rebinds[1].offset == unique_at(original, second));
    }
    SECTION("two branches' 'w', the If's output renamed by the tool") {
        const wire_builder then_g = graph({with_raw("w", {2, 3}, first)}, {}, "then");
        const wire_builder else_g = graph({with_raw("w", {2, 3}, second)}, {}, "else");
        const std::string original = model(graph({}, {if_node("y", then_g, &else_g)}));
        const wire_builder bare_then = graph({bare("w", {2, 3})}, {}, "then");
        const wire_builder bare_else = graph({bare("w", {2, 3})}, {}, "else");
        const std::string proxy = model(graph({}, {if_node("y_renamed", bare_then, &bare_else)}));
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        CHECK(p.plan.refused.empty());
        REQUIRE(p.plan.rebinds.size() == 2);
        CHECK(p.plan.rebinds[0].offset == unique_at(original, first));
        CHECK(p.plan.rebinds[1].offset == unique_at(original, second));
    }
}

TEST_CASE("rebind: tensors of model-local functions and training graphs are not considered") {
    const std::string pf = floats(6, 70.0f), pt = floats(6, 71.0f), pa = floats(6, 72.0f);
    const auto training = [](const wire_builder& init, const wire_builder& algo) {
        wire_builder t;
        t.field_message(1, init).field_message(2, algo);
        wire_builder m;
        m.field_message(20, t);
        return m;
    };
    const auto functions = [](const wire_builder& constant_node) {
        wire_builder m;
        m.field_message(25, function("f", "local", {constant_node}));
        return m;
    };

    SECTION("in the proxy: nothing missing") {
        const std::string proxy = model(graph({with_raw("w", {2, 3}, floats(6, 1.0f))}),
                                        {training(graph({bare("tw", {2, 3})}, {}, "init"),
                                                  graph({bare("aw", {2, 3})}, {}, "algo")),
                                         functions(constant("y", bare("fw", {2, 3})))});
        const std::string original = model(graph({}), {training(graph({with_raw("tw", {2, 3}, pt)}, {}, "init"),
                                                                 graph({with_raw("aw", {2, 3}, pa)}, {}, "algo")),
                                                        functions(constant("y", with_raw("fw", {2, 3}, pf)))});
        // The payload-less tensors are there, where the walk sees them.
        std::size_t seen = 0;
        REQUIRE(for_each_tensor(parse_model(proxy.data(), proxy.size()), [&](const stored_tensor&) { ++seen; }).ok());
        CHECK(seen == 4);
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        CHECK(p.plan.missing() == 0);
        CHECK(p.plan.rebinds.empty());
    }
    SECTION("in the original: no candidates") {
        const std::string original = model(graph({}), {training(graph({with_raw("w", {2, 3}, pt)}, {}, "init"),
                                                                 graph({with_raw("w", {2, 3}, pa)}, {}, "algo")),
                                                        functions(constant("c", with_raw("w", {2, 3}, pf)))});
        const std::string proxy = model(graph({bare("w", {2, 3})}, {constant("c", bare("", {2, 3}))}));
        const planned p = plan(proxy, original);
        REQUIRE(p.err.ok());
        CHECK(p.plan.bound.empty());
        CHECK(refusals(p.plan) ==
              std::vector<std::string>{"w: no_match", "(attribute value of the node making c): no_match"});
    }
}

TEST_CASE("rebind: pack_model gives the planned tensors their references and keeps their other fields") {
    const std::string pw = floats(6, 3.0f), pc = floats(6, 4.0f), pk = floats(6, 8.0f);
    const std::string original =
        model(graph({with_raw("w", {2, 3}, pw), with_raw("k", {2, 3}, pk)}, {constant("c", with_raw("", {2, 3}, pc))}));
    wire_builder w = bare("w", {2, 3});
    w.field_bytes(field::doc_string, "the weights");
    w.field_varint(field::data_location, 1);  // left EXTERNAL by a tool that dropped the entries
    const std::string kept_payload = floats(6, 9.0f);
    const std::string proxy =
        model(graph({w, with_raw("k", {2, 3}, kept_payload)}, {constant("c", bare("", {2, 3}))}));

    const planned p = plan(proxy, original, "original.onnx");
    REQUIRE(p.err.ok());
    REQUIRE(p.plan.rebinds.size() == 2);
    CHECK(p.plan.refused.empty());

    const packed out = pack_with(proxy, p.plan.rebinds);
    REQUIRE(out.err.ok());
    CHECK(out.stats.rebound == 2);
    CHECK(verify(out.model.data(), out.model.size(), schema::msg_ModelProto, options{}).ok());

    const std::vector<tensor_view> ts = tensors_of(out.model);
    REQUIRE(ts.size() == 3);
    std::string copy = original;
    const external_payload_source source{&copy, fetch_in_memory};

    const tensor_view& tw = ts[0];
    CHECK(tw.name() == "w");
    CHECK(tw.data_type() == 1);
    std::vector<std::int64_t> dims;
    for (std::int64_t d : tw.dims()) dims.push_back(d);
    CHECK(dims == std::vector<std::int64_t>{2, 3});
    CHECK(tw.doc_string() == "the weights");
    CHECK(tw.data_location() == location_kind::external);
    CHECK(occurrences(tw, field::data_location) == 1);
    CHECK(tw.external_data().size() == 3);
    const tensor_rebind& rw = p.plan.rebinds[1];  // sorted: the Constant's tensor lies first
    REQUIRE(rw.tensor == tensor_at(proxy, "w"));
    CHECK(external_entry_text(tw, "location") == "original.onnx");
    CHECK(external_entry_text(tw, "offset") == std::to_string(rw.offset));
    CHECK(external_entry_text(tw, "length") == "24");
    const result<tensor_data> dw = tensor_data::make(tw, &source);
    REQUIRE(dw);
    CHECK(dw->bytes() == pw);

    // The tensor with a payload is as it was.
    const tensor_view& tk = ts[1];
    CHECK(tk.name() == "k");
    CHECK(tk.data_location() == location_kind::default_location);
    CHECK(tk.raw_data() == kept_payload);

    // The Constant's attribute tensor.
    const tensor_view& tc = ts[2];
    CHECK(tc.name().empty());
    CHECK(tc.data_location() == location_kind::external);
    CHECK(external_entry_text(tc, "offset") == std::to_string(unique_at(original, pc)));
    const result<tensor_data> dc = tensor_data::make(tc, &source);
    REQUIRE(dc);
    CHECK(dc->bytes() == pc);

    // With pack_model's default tensor options too (the tensor with a
    // payload may then move; the rebound ones are references all the same).
    {
        edit_options edits{};
        edits.rebinds = p.plan.rebinds.data();
        edits.rebind_count = p.plan.rebinds.size();
        pack_options po{};
        po.edits = &edits;
        std::string bytes;
        pack_stats stats;
        REQUIRE(pack_model(proxy, nullptr, po, write_sink{&bytes, append}, nullptr, &stats).ok());
        CHECK(stats.rebound == 2);
        const std::vector<tensor_view> dt = tensors_of(bytes);
        REQUIRE(dt.size() == 3);
        CHECK(dt[0].data_location() == location_kind::external);
        CHECK(external_entry_text(dt[0], "offset") == std::to_string(rw.offset));
        CHECK(dt[1].raw_data() == kept_payload);
        CHECK(dt[2].data_location() == location_kind::external);
    }

    // With strip_doc_strings the doc string goes, the reference stays.
    edit_options strip{};
    strip.strip_doc_strings = true;
    const packed stripped = pack_with(proxy, p.plan.rebinds, strip);
    REQUIRE(stripped.err.ok());
    CHECK(stripped.stats.rebound == 2);
    const std::vector<tensor_view> st = tensors_of(stripped.model);
    REQUIRE(st.size() == 3);
    CHECK(st[0].name() == "w");
    CHECK(!st[0].has_doc_string());
    CHECK(external_entry_text(st[0], "location") == "original.onnx");
    CHECK(external_entry_text(st[0], "offset") == std::to_string(rw.offset));
}

TEST_CASE("rebind: rebinds made together with renames and a topological sort") {
    const std::string pw = floats(6, 21.0f), pc = floats(6, 22.0f);
    const std::string original =
        model(graph({with_raw("w", {2, 3}, pw)}, {constant("c", with_raw("", {2, 3}, pc)), node("Relu", {"c"}, {"r"})}));
    // The tool's output: the Relu before the Constant it reads.
    const std::string proxy =
        model(graph({bare("w", {2, 3})}, {node("Relu", {"c"}, {"r"}), constant("c", bare("", {2, 3}))}));
    const planned p = plan(proxy, original, "original.onnx");
    REQUIRE(p.err.ok());
    REQUIRE(p.plan.rebinds.size() == 2);

    edit_options edits{};
    const name_change rename{"w", "w_new"};
    edits.renames = &rename;
    edits.rename_count = 1;
    edits.toposort = true;
    const packed out = pack_with(proxy, p.plan.rebinds, edits);
    REQUIRE(out.err.ok());
    CHECK(out.stats.rebound == 2);
    CHECK(out.stats.names_renamed == 1);
    CHECK(out.stats.nodes_moved != 0);
    REQUIRE(verify(out.model.data(), out.model.size(), schema::msg_ModelProto, options{}).ok());
    const model_view m = parse_model(out.model.data(), out.model.size());
    names order;
    for (const node_view& n : m.graph().node()) order.emplace_back(n.name());
    CHECK(order == names{"c_node", "r_node"});

    std::string copy = original;
    const external_payload_source source{&copy, fetch_in_memory};
    const std::vector<tensor_view> ts = tensors_of(out.model);
    REQUIRE(ts.size() == 2);
    CHECK(ts[0].name() == "w_new");
    CHECK(ts[0].data_location() == location_kind::external);
    const result<tensor_data> dw = tensor_data::make(ts[0], &source);
    REQUIRE(dw);
    CHECK(dw->bytes() == pw);
    CHECK(ts[1].name().empty());
    CHECK(ts[1].data_location() == location_kind::external);
    const result<tensor_data> dc = tensor_data::make(ts[1], &source);
    REQUIRE(dc);
    CHECK(dc->bytes() == pc);
}

TEST_CASE("rebind: pack_model refuses rebinds that name no payload-less tensor, unsorted ones and bad locations") {
    const std::string proxy = model(graph({bare("w", {2, 3}), with_raw("p", {2, 3}, floats(6, 1.0f)), bare("v", {2, 3})}));
    const std::uint64_t w = tensor_at(proxy, "w"), p = tensor_at(proxy, "p"), v = tensor_at(proxy, "v");
    REQUIRE(w < p);
    REQUIRE(p < v);

    SECTION("valid: both rebound") {
        const packed out = pack_with(proxy, {{w, "o.onnx", 0, 24}, {v, "o.onnx", 24, 24}});
        REQUIRE(out.err.ok());
        CHECK(out.stats.rebound == 2);
    }
    // Every refusal is found before anything is written.
    SECTION("an offset that is no tensor") {
        const packed out = pack_with(proxy, {{w + 1, "o.onnx", 0, 24}});
        CHECK(out.err.code == errc::invalid_argument);
        CHECK(out.model.empty());
        const packed past = pack_with(proxy, {{w, "o.onnx", 0, 24}, {proxy.size() + 10, "o.onnx", 0, 24}});
        CHECK(past.err.code == errc::invalid_argument);
        CHECK(past.model.empty());
    }
    SECTION("a tensor with a payload") {
        const packed out = pack_with(proxy, {{p, "o.onnx", 0, 24}});
        CHECK(out.err.code == errc::invalid_argument);
        CHECK(out.err.offset == p);
        CHECK(out.model.empty());
    }
    SECTION("unsorted, or one tensor twice") {
        const packed unsorted = pack_with(proxy, {{v, "o.onnx", 0, 24}, {w, "o.onnx", 0, 24}});
        CHECK(unsorted.err.code == errc::invalid_argument);
        CHECK(unsorted.model.empty());
        const packed twice = pack_with(proxy, {{w, "o.onnx", 0, 24}, {w, "o.onnx", 0, 24}});
        CHECK(twice.err.code == errc::invalid_argument);
        CHECK(twice.model.empty());
    }
    SECTION("an empty location, or one over 4095 bytes") {
        const packed empty = pack_with(proxy, {{w, "", 0, 24}});
        CHECK(empty.err.code == errc::invalid_argument);
        CHECK(empty.model.empty());
        const std::string longest(4095, 'x'), too_long(4096, 'x');
        const packed fits = pack_with(proxy, {{w, longest, 0, 24}});
        REQUIRE(fits.err.ok());
        CHECK(fits.stats.rebound == 1);
        CHECK(pack_with(proxy, {{w, too_long, 0, 24}}).err.code == errc::invalid_argument);
    }
}

TEST_CASE("rebind: rebind_refusal_name names every refusal") {
    CHECK(std::string(rebind_refusal_name(rebind_refusal::no_match)) == "no_match");
    CHECK(std::string(rebind_refusal_name(rebind_refusal::type_differs)) == "type_differs");
    CHECK(std::string(rebind_refusal_name(rebind_refusal::shape_differs)) == "shape_differs");
    CHECK(std::string(rebind_refusal_name(rebind_refusal::ambiguous)) == "ambiguous");
    CHECK(std::string(rebind_refusal_name(rebind_refusal::not_referable)) == "not_referable");
    CHECK(std::string(rebind_refusal_name(static_cast<rebind_refusal>(200))) == "?");
}
