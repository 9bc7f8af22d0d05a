// model_diff.hpp: diff_models() on small models written with wire_builder,
// one change at a time, checked field by field; the names of its enums and
// scope_node_lines(); the reports (diff_report.hpp); digests of models read
// from files with pread (digest_options::payload_file).
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "../io/tmpdir.hpp"
#include "../wire_builder.hpp"
#include "onnxview/compare/diff_report.hpp"
#include "onnxview/compare/model_diff.hpp"
#include "onnxview/file.hpp"
#include "onnxview/model_file.hpp"

using namespace onnxview;
using testing::wire_builder;

namespace {

// The fields of the messages written here, by their onnx.proto names.
enum : std::uint32_t { model_ir_version = 1, model_producer_name = 2, model_producer_version = 3, model_graph = 7,
                       model_opset_import = 8 };
enum : std::uint32_t { graph_node = 1, graph_name = 2, graph_initializer = 5, graph_input = 11, graph_output = 12,
                       graph_value_info = 13 };
enum : std::uint32_t { node_input = 1, node_output = 2, node_name = 3, node_op_type = 4, node_attribute = 5 };
enum : std::uint32_t { attribute_name = 1, attribute_i = 3, attribute_type = 20 };
enum : std::uint32_t { tensor_dims = 1, tensor_data_type = 2, tensor_name = 8, tensor_raw_data = 9 };
enum : std::int32_t { FLOAT = 1, UINT8 = 2 };  // TensorProto.DataType
enum : std::int32_t { INT64_ATTRIBUTE = 2 };  // AttributeProto.AttributeType

std::string raw_floats(std::initializer_list<float> fs) {
    std::string out;
    for (float f : fs) {
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        out += wire_builder().fixed32(b).str();
    }
    return out;
}

// A FLOAT[dim] value: ValueInfoProto { name, type { tensor_type { elem_type, shape { dim } } } }.
wire_builder value_info(const char* name, std::uint64_t dim) {
    const wire_builder shape = wire_builder().field_message(1, wire_builder().field_varint(1, dim));
    const wire_builder tensor = wire_builder().field_varint(1, FLOAT).field_message(2, shape);
    return wire_builder().field_bytes(1, name).field_message(2, wire_builder().field_message(1, tensor));
}

// What a test changes in the model `model()` writes.
struct model_spec {
    const char* producer = "p";
    const char* node = "add1";
    std::uint64_t axis = 1;
    float weight = 2.0f;
    std::uint64_t input_dim = 2;
    const char* value_info = nullptr;  // a value_info entry's name
    const char* weight_name = "w";
};

// x (FLOAT[dim]) + w (initializer FLOAT[2]) -> y, in a node with an INT attribute `axis`.
std::string model(const model_spec& s = {}) {
    const wire_builder attribute = wire_builder().field_bytes(attribute_name, "axis")
                                       .field_varint(attribute_i, s.axis).field_varint(attribute_type, INT64_ATTRIBUTE);
    const wire_builder node = wire_builder().field_bytes(node_input, "x").field_bytes(node_input, s.weight_name)
                                  .field_bytes(node_output, "y").field_bytes(node_name, s.node)
                                  .field_bytes(node_op_type, "Add").field_message(node_attribute, attribute);
    const wire_builder weight = wire_builder().field_varint(tensor_dims, 2).field_varint(tensor_data_type, FLOAT)
                                    .field_bytes(tensor_name, s.weight_name).field_bytes(tensor_raw_data, raw_floats({1.0f, s.weight}));
    wire_builder graph = wire_builder().field_message(graph_node, node).field_bytes(graph_name, "g")
                             .field_message(graph_initializer, weight).field_message(graph_input, value_info("x", s.input_dim))
                             .field_message(graph_output, value_info("y", 2));
    if (s.value_info != nullptr) graph.field_message(graph_value_info, value_info(s.value_info, 2));
    return wire_builder().field_varint(model_ir_version, 8).field_bytes(model_producer_name, s.producer)
        .field_message(model_graph, graph)
        .field_message(model_opset_import, wire_builder().field_bytes(1, "").field_varint(2, 17))
        .str();
}

model_file open(const std::string& bytes) {
    result<model_file> r = model_file::adopt(mapped_file::from_memory(bytes.data(), bytes.size()));
    REQUIRE(r.ok());
    return std::move(r.value());
}

// diff_models of two models' bytes (which must outlive nothing: the result holds copies).
model_diff diff(const std::string& a, const std::string& b, const diff_options& options = {}) {
    model_file fa = open(a), fb = open(b);
    model_diff d;
    const error e = diff_models(fa, fb, options, d);
    REQUIRE(!e);
    return d;
}

}  // namespace

TEST_CASE("diff_models: a model against its own bytes is identical") {
    const std::string m = model();
    const model_diff d = diff(m, m);
    CHECK(d.changes.empty());
    CHECK(d.verdict == diff_verdict::identical);
    CHECK(d.same_computation());
    CHECK(d.digest_a == d.digest_b);
    CHECK(d.values_compared);
}

TEST_CASE("diff_models: an attribute changed is one counted graph change with its old and new value") {
    model_spec s;
    s.axis = 2;
    const model_diff d = diff(model(), model(s));
    REQUIRE(d.changes.size() == 1);
    const model_change& c = d.changes[0];
    CHECK(c.section == diff_section::graph);
    CHECK(c.kind == change_kind::changed);
    CHECK(c.what == change_subject::node);
    CHECK(c.scope == "graph");
    CHECK(c.subject == "'add1'");
    CHECK(c.attribute == "axis");
    CHECK(c.before == "1");
    CHECK(c.after == "2");
    CHECK(c.counted);
    CHECK(d.counts.graph == 1);
    CHECK(d.counts.signature + d.counts.weights == 0);
    CHECK(d.verdict == diff_verdict::differ);
    CHECK(d.digest_a != d.digest_b);
}

TEST_CASE("diff_models: a weight's values, by figures; none and allclose leave them") {
    model_spec s;
    s.weight = 2.5f;
    const std::string a = model(), b = model(s);
    SECTION("exact") {
        const model_diff d = diff(a, b);
        REQUIRE(d.changes.size() == 1);
        const model_change& c = d.changes[0];
        CHECK(c.section == diff_section::weights);
        CHECK(c.kind == change_kind::values);
        CHECK(c.what == change_subject::initializer);
        CHECK(c.subject == "w");
        CHECK(c.scope.empty());
        REQUIRE(c.figures);
        CHECK(c.figures->count == 2);
        CHECK(c.figures->differing == 1);
        CHECK(c.figures->first_index == 1);
        CHECK(c.figures->max_abs == Approx(0.5));
        CHECK_FALSE(c.string_values);
        CHECK(d.counts.weights == 1);
        CHECK(d.verdict == diff_verdict::differ);
    }
    SECTION("none: no payload read, the same computation") {
        diff_options o;
        o.weights = weights_comparison::none;
        const model_diff d = diff(a, b, o);
        CHECK(d.changes.empty());
        CHECK(d.verdict == diff_verdict::identical);
        CHECK_FALSE(d.values_compared);
    }
    SECTION("allclose: within the tolerance, not listed") {
        diff_options o;
        o.weights = weights_comparison::allclose;
        o.tolerance = {0.5, 0};
        const model_diff d = diff(a, b, o);
        CHECK(d.changes.empty());
        CHECK(d.verdict == diff_verdict::same_within_tolerance);
        o.tolerance = {0.01, 0};
        CHECK(diff(a, b, o).counts.weights == 1);
    }
}

TEST_CASE("diff_models: digests on two threads or on one give the same report") {
    model_spec s;
    s.weight = 2.5f;
    s.axis = 2;
    const std::string a = model(), b = model(s);
    diff_options one_thread;
    one_thread.parallel = false;
    const model_diff both = diff(a, b), alone = diff(a, b, one_thread);
    CHECK(both.digest_a == alone.digest_a);
    CHECK(both.digest_b == alone.digest_b);
    REQUIRE(both.changes.size() == alone.changes.size());
    for (std::size_t i = 0; i < both.changes.size(); ++i) {
        const model_change &x = both.changes[i], &y = alone.changes[i];
        CHECK((x.section == y.section && x.kind == y.kind && x.subject == y.subject && x.attribute == y.attribute &&
               x.before == y.before && x.after == y.after));
    }
    // One model_file on both sides (not made parallel: one resolver).
    model_file f = open(a);
    model_diff self;
    REQUIRE(!diff_models(f, f, {}, self));
    CHECK(self.verdict == diff_verdict::identical);
}

namespace {

// A model over 2 GiB, as a sparse file: initializer `big`, UINT8[big_size],
// all zeros, then initializer `w`, FLOAT[2] {1, weight}, whose bytes lie past
// 2 GiB. Whether the file system made it.
constexpr std::uint64_t big_size = (std::uint64_t(1) << 31) + 4099;

bool write_big_model(const std::string& path, float weight) {
    const std::string big_head = wire_builder().field_varint(tensor_dims, big_size)
                                     .field_varint(tensor_data_type, UINT8).field_bytes(tensor_name, "big")
                                     .field_len_raw(tensor_raw_data, big_size).str();
    const std::uint64_t big_len = big_head.size() + big_size;
    const std::string w = wire_builder().field_varint(tensor_dims, 2).field_varint(tensor_data_type, FLOAT)
                              .field_bytes(tensor_name, "w").field_bytes(tensor_raw_data, raw_floats({1.0f, weight})).str();
    const std::string tail = wire_builder().field_message(graph_initializer, wire_builder().raw(w)).str();
    const std::uint64_t graph_len = wire_builder().field_len_raw(graph_initializer, big_len).str().size() + big_len +
                                    tail.size();
    const std::string head = wire_builder().field_varint(model_ir_version, 8)
                                 .field_message(model_opset_import, wire_builder().field_bytes(1, "").field_varint(2, 17))
                                 .field_len_raw(model_graph, graph_len).field_len_raw(graph_initializer, big_len)
                                 .raw(big_head).str();
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return false;
    const off_t tail_at = static_cast<off_t>(head.size() + big_size);
    const bool ok = ::pwrite(fd, head.data(), head.size(), 0) == static_cast<ssize_t>(head.size()) &&
                    ::pwrite(fd, tail.data(), tail.size(), tail_at) == static_cast<ssize_t>(tail.size());
    ::close(fd);
    return ok;
}

}  // namespace

TEST_CASE("diff_models: models over 2 GiB, a change past 2 GiB", "[large]") {
    if (sizeof(std::size_t) < 8) {
        WARN("32-bit host: files over 2 GiB are not mapped; skipped");
        return;
    }
    onnxview_test::tmpdir dir;
    const std::string a = dir / "a.onnx", b = dir / "b.onnx";
    if (!write_big_model(a, 2.0f) || !write_big_model(b, 2.5f)) {
        WARN("the file system refused a sparse file over 2 GiB; skipped");
        return;
    }
    // Payloads through the mapping, and copied with pread (onnxview diff's way).
    options opened;
    opened.keep_descriptor = GENERATE(false, true);
    result<model_file> fa = model_file::open(a.c_str(), opened), fb = model_file::open(b.c_str(), opened);
    REQUIRE(fa.ok());
    REQUIRE(fb.ok());
    REQUIRE(fa->bytes().size() > big_size);
    CHECK(fa->file().keeps_descriptor() == opened.keep_descriptor);

    model_diff d;
    REQUIRE(!diff_models(fa.value(), fb.value(), {}, d));
    REQUIRE(d.changes.size() == 1);  // `big` hashed alike on both sides: not listed
    const model_change& c = d.changes[0];
    CHECK(c.section == diff_section::weights);
    CHECK(c.subject == "w");
    REQUIRE(c.figures);
    CHECK(c.figures->count == 2);
    CHECK(c.figures->differing == 1);
    CHECK(c.figures->first_index == 1);
    CHECK(c.figures->max_abs == Approx(0.5));
    CHECK(d.verdict == diff_verdict::differ);
    CHECK(d.digest_a != d.digest_b);

    model_diff self;
    REQUIRE(!diff_models(fa.value(), fa.value(), {}, self));
    CHECK(self.changes.empty());
    CHECK(self.verdict == diff_verdict::identical);
}

TEST_CASE("diff_models: an input's shape is a signature change") {
    model_spec s;
    s.input_dim = 3;
    const model_diff d = diff(model(), model(s));
    REQUIRE(d.changes.size() == 1);
    const model_change& c = d.changes[0];
    CHECK(c.section == diff_section::signature);
    CHECK(c.kind == change_kind::shape);
    CHECK(c.what == change_subject::input);
    CHECK(c.subject == "x");
    CHECK(c.before == "[2]");
    CHECK(c.after == "[3]");
    CHECK(d.counts.signature == 1);
}

TEST_CASE("diff_models: the producer is listed, not counted, and can be ignored") {
    model_spec s;
    s.producer = "q";
    const model_diff d = diff(model(), model(s));
    REQUIRE(d.changes.size() == 1);
    CHECK(d.changes[0].section == diff_section::model);
    CHECK(d.changes[0].what == change_subject::producer);
    CHECK(d.changes[0].before == "p");
    CHECK(d.changes[0].after == "q");
    CHECK_FALSE(d.changes[0].counted);
    CHECK(d.verdict == diff_verdict::same_layout_differs);
    diff_options o;
    o.ignore.producer = true;
    const model_diff ignored = diff(model(), model(s), o);
    CHECK(ignored.changes.empty());
    CHECK(ignored.verdict == diff_verdict::identical);
}

TEST_CASE("diff_models: a renamed node with automatic matching, and with names ignored") {
    model_spec s;
    s.node = "renamed";
    const std::string a = model(), b = model(s);
    SECTION("by name: removed and added") {
        const model_diff d = diff(a, b);
        CHECK(d.counts.graph == 2);
        CHECK(d.verdict == diff_verdict::differ);
    }
    SECTION("automatic: one names change, not counted") {
        diff_options o;
        o.matching = node_matching::automatic;
        const model_diff d = diff(a, b, o);
        REQUIRE(d.changes.size() == 1);
        const model_change& c = d.changes[0];
        CHECK(c.section == diff_section::names);
        CHECK(c.kind == change_kind::renamed);
        CHECK(c.what == change_subject::nodes);
        CHECK(c.before == "add1");
        CHECK(c.after == "renamed");
        CHECK_FALSE(c.counted);
        CHECK(d.matching.nodes == 1);
        CHECK(d.matching.matched == 1);
        CHECK(d.matching.renamed == 1);
        CHECK(d.verdict == diff_verdict::same_names_differ);
    }
    SECTION("names ignored: matched automatically, nothing listed") {
        diff_options o;
        o.ignore.names = true;
        const model_diff d = diff(a, b, o);
        CHECK(d.changes.empty());
        CHECK(d.matching.renamed == 1);
        CHECK(d.verdict == diff_verdict::same_names_differ);
    }
}

TEST_CASE("pair_value_names: the values whose names differ, weights through the nodes reading them") {
    model_spec s;
    s.weight_name = "p_w";
    s.node = "p_add1";
    const std::string bytes_a = model(), bytes_b = model(s);  // the files map them
    model_file a = open(bytes_a), b = open(bytes_b);
    std::vector<std::pair<std::string, std::string>> pairs{{"stale", "entry"}};
    REQUIRE(pair_value_names(a, b, pairs).ok());
    REQUIRE(pairs.size() == 1);  // cleared first; x and y keep their names
    CHECK(pairs[0].first == "w");
    CHECK(pairs[0].second == "p_w");
    model_file same = open(bytes_a);
    REQUIRE(pair_value_names(a, same, pairs).ok());
    CHECK(pairs.empty());
}

TEST_CASE("diff_models: value_info is never compared; ignoring it changes nothing") {
    model_spec s;
    s.value_info = "y";
    const std::string a = model(), b = model(s);
    diff_options o;
    o.ignore.value_info = true;
    for (const model_diff& d : {diff(a, b), diff(a, b, o)}) {
        REQUIRE(d.changes.size() == 1);
        CHECK(d.changes[0].section == diff_section::layout);
        CHECK(d.changes[0].kind == change_kind::encoding);
        CHECK(d.verdict == diff_verdict::same_layout_differs);
        CHECK(d.digest_a == d.digest_b);
    }
}

TEST_CASE("diff_models: a truncated model is an error") {
    const std::string m = model();
    model_file good = open(m);
    const std::string cut = m.substr(0, m.size() - 3);
    result<model_file> r = model_file::adopt(mapped_file::from_memory(cut.data(), cut.size()));
    if (!r.ok()) return;  // refused at opening: nothing left to compare
    model_diff d;
    CHECK(diff_models(good, r.value(), {}, d));
    CHECK(d.failed_in_b);
}

TEST_CASE("diff_section_name, change_kind_name, change_subject_name, diff_verdict_text") {
    CHECK(std::string(diff_section_name(diff_section::model)) == "model");
    CHECK(std::string(diff_section_name(diff_section::names)) == "names");
    CHECK(std::string(change_kind_name(change_kind::added)) == "added");
    CHECK(std::string(change_kind_name(change_kind::op_type)) == "op_type");
    CHECK(std::string(change_kind_name(change_kind::values_unread)) == "values_unread");
    CHECK(std::string(change_subject_name(change_subject::none)).empty());
    CHECK(std::string(change_subject_name(change_subject::sparse_initializer)) == "sparse_initializer");
    CHECK(std::string(diff_verdict_text(diff_verdict::identical)) == "identical");
    CHECK(std::string(diff_verdict_text(diff_verdict::same_layout_differs)) == "same computation, layout differs");
    CHECK(std::string(diff_verdict_text(diff_verdict::differ)) == "differ");
}

TEST_CASE("scope_node_lines: each scope's node count, then its nodes") {
    const std::string m = model();
    model_file f = open(m);
    std::vector<std::string> lines;
    REQUIRE(!scope_node_lines(f, lines));
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "graph: 1 nodes");
    CHECK(lines[1] == "graph: node 'add1' Add ['x', 'w'] -> ['y'] axis=1");
}

// ---- diff_report.hpp: the report's words, and the option words --------------

TEST_CASE("diff_report_text and diff_change_text: one line per change, then the totals") {
    model_spec s;
    s.axis = 2;
    const model_diff d = diff(model(), model(s));
    const diff_options options;
    const diff_report_names names{"a.onnx", "b.onnx", {}, {}};
    REQUIRE(d.changes.size() == 1);
    CHECK(diff_change_text(d.changes[0], d, options, names) == "graph: node 'add1': attribute axis: 1 -> 2");
    CHECK(diff_report_text(d, options, names) ==
          "graph\n  graph: node 'add1': attribute axis: 1 -> 2\n0 signature, 1 graph, 0 weight changes\n");
    // Past max_changes a section says how many it leaves out.
    CHECK(diff_report_text(d, options, names, 0) == "graph\n  ... 1 more\n0 signature, 1 graph, 0 weight changes\n");
    const std::string m = model();
    CHECK(diff_report_text(diff(m, m), options, names) == "identical\n");
}

TEST_CASE("diff_change_text: a weight's figures, and the tolerance under allclose") {
    model_spec s;
    s.weight = 2.5f;
    diff_options options;
    const diff_report_names names{"a.onnx", "b.onnx", {}, {}};
    const model_diff exact = diff(model(), model(s), options);
    REQUIRE(exact.changes.size() == 1);
    CHECK(diff_change_text(exact.changes[0], exact, options, names) ==
          "initializer 'w': 1 of 2 values differ, first at 1, max abs 0.5, max rel 0.25, mean abs 0.25, RMS 0.353553, "
          "cosine 0.996546");  // [1, 2] against [1, 2.5]: 0.5 / 2; sqrt(0.5^2 / 2); 6 / sqrt(5 * 7.25)
    options.weights = weights_comparison::allclose;
    options.tolerance = {0.0, 0.1};
    const model_diff loose = diff(model(), model(s), options);
    REQUIRE(loose.changes.size() == 1);
    const std::string line = diff_change_text(loose.changes[0], loose, options, names);
    CHECK(line.substr(line.size() - 26) == ", 1 beyond rtol 0 atol 0.1");
}

TEST_CASE("diff_report_json: version 2, the paths, each change with its text line") {
    model_spec s;
    s.axis = 2;
    const model_diff d = diff(model(), model(s));
    const std::string json = diff_report_json(d, {}, {"a\".onnx", "b.onnx", {}, {}});
    CHECK(json.rfind("{\n  \"version\": 2,\n  \"a\": \"a\\\".onnx\",\n  \"b\": \"b.onnx\",\n", 0) == 0);
    CHECK(json.find("\"text\": \"graph: node 'add1': attribute axis: 1 -> 2\"") != std::string::npos);
    CHECK(json.find("\"result\": \"differ\"") != std::string::npos);
    CHECK(json.find("\"figures\"") == std::string::npos);  // only for changed values
    CHECK(json.back() == '\n');
}

TEST_CASE("parse_diff_ignore and parse_diff_weights: the words, and what they refuse") {
    diff_ignore ignore;
    CHECK(parse_diff_ignore("doc_string,names", ignore));
    CHECK((ignore.doc_string && ignore.names && !ignore.producer && !ignore.metadata && !ignore.value_info));
    CHECK(parse_diff_ignore("", ignore));
    for (const char* bad : {"doc", "names,", ",names", "names,,producer", "NAMES", ","}) {
        diff_ignore other;
        CHECK_FALSE(parse_diff_ignore(bad, other));
        CHECK_FALSE((other.doc_string || other.names || other.producer));  // unchanged
    }
    diff_options o;
    CHECK(parse_diff_weights("none", o));
    CHECK(o.weights == weights_comparison::none);
    CHECK(parse_diff_weights("allclose", o));
    CHECK(o.weights == weights_comparison::allclose);
    CHECK(o.tolerance.rtol == 1e-05);
    CHECK(parse_diff_weights("allclose:atol=0.5,rtol=2e-3", o));
    CHECK((o.tolerance.atol == 0.5 && o.tolerance.rtol == 2e-3));
    CHECK(parse_diff_weights("exact", o));
    CHECK(o.weights == weights_comparison::exact);
    for (const char* bad : {"", "close", "allclose:", "allclose:rtol=-1", "allclose:atol=inf", "allclose:tol=1",
                            "allclose:rtol=1x", "exact:rtol=1", "allclose;rtol=1", "allclose:rtol=1,", "allclose:rtol= 1",
                            "allclose:atol=0.5,rtol=nan"}) {
        diff_options other;
        CHECK_FALSE(parse_diff_weights(bad, other));
        CHECK((other.weights == weights_comparison::exact && other.tolerance.atol == 1e-08));  // unchanged
    }
}

namespace {

enum : std::uint32_t { tensor_external_data = 13, tensor_data_location = 14 };

// ir_version, opset, then a graph whose last field is an initializer whose
// last field is `raw_data` (1 MiB of FLOAT): the file's last bytes are that
// payload. Before it, an initializer of 65536 FLOATs in weights.bin.
std::string model_ending_in_payload(const std::string& payload) {
    const auto entry = [](const char* key, const std::string& value) {
        return wire_builder().field_bytes(1, key).field_bytes(2, value);
    };
    const wire_builder external = wire_builder().field_varint(tensor_dims, 65536).field_varint(tensor_data_type, FLOAT)
                                      .field_bytes(tensor_name, "e")
                                      .field_message(tensor_external_data, entry("location", "weights.bin"))
                                      .field_message(tensor_external_data, entry("length", "262144"))
                                      .field_varint(tensor_data_location, 1);
    const wire_builder last = wire_builder().field_varint(tensor_dims, payload.size() / 4)
                                  .field_varint(tensor_data_type, FLOAT).field_bytes(tensor_name, "w")
                                  .field_bytes(tensor_raw_data, payload);
    const wire_builder graph = wire_builder().field_bytes(graph_name, "g").field_message(graph_initializer, external)
                                   .field_message(graph_initializer, last);
    return wire_builder().field_varint(model_ir_version, 8)
        .field_message(model_opset_import, wire_builder().field_bytes(1, "").field_varint(2, 17))
        .field_message(model_graph, graph).str();
}

}  // namespace

TEST_CASE("digest_options::payload_file: payloads copied with pread, the digest unchanged; truncation is an error") {
    onnxview_test::tmpdir dir;
    const std::string payload = onnxview_test::pattern(std::size_t(1) << 20);
    const std::string bytes = model_ending_in_payload(payload);
    const std::string path = dir / "m.onnx";
    REQUIRE(onnxview_test::write_file(path, bytes));
    REQUIRE(onnxview_test::write_file(dir / "weights.bin", onnxview_test::pattern(262144)));
    options kept;
    kept.keep_descriptor = true;
    result<model_file> with = model_file::open(path.c_str(), kept), without = model_file::open(path.c_str());
    REQUIRE(with.ok());
    REQUIRE(without.ok());
    model_file& kept_file = with.value();
    model_file& plain_file = without.value();
    const external_payload_source ext_with = kept_file.external(), ext_without = plain_file.external();
    const result<digest128> copied = model_digest(kept_file.model(), &ext_with, reading_payloads_once(kept_file));
    const result<digest128> mapped = model_digest(plain_file.model(), &ext_without, reading_payloads_once(plain_file));
    const result<digest128> plain = model_digest(plain_file.model(), &ext_without);
    REQUIRE(copied.ok());
    REQUIRE(mapped.ok());
    REQUIRE(plain.ok());
    CHECK(*copied == *plain);
    CHECK(*mapped == *plain);

    // Each payload's file: the model's own, and weights.bin once opened.
    const tensor_view w = kept_file.model().graph().initializer().at(1);
    CHECK(kept_file.file_holding(w.raw_data().data(), w.raw_data().size()) == &kept_file.file());
    const result<tensor_data> e = kept_file.tensor(kept_file.model().graph().initializer().at(0));
    REQUIRE(e.ok());
    const mapped_file* weights = kept_file.file_holding(e->bytes().data(), e->bytes().size());
    REQUIRE(weights != nullptr);
    CHECK(weights != &kept_file.file());
    CHECK(weights->keeps_descriptor());
    CHECK(kept_file.file_holding(payload.data(), 4) == nullptr);  // other memory

    // The model file cut inside the last payload: read with pread, an error
    // (through the mapping that page would raise SIGBUS).
    REQUIRE(::truncate(path.c_str(), static_cast<off_t>(bytes.size() - payload.size() / 2)) == 0);
    const result<digest128> cut = model_digest(kept_file.model(), &ext_with, reading_payloads_once(kept_file));
    CHECK(cut.err().code == errc::io_read_failed);
}
