// field_path_at and the schema tables: no oracle needed.
#include <catch2/catch.hpp>

#include <string>

#include "build.hpp"
#include "onnxview/field_path.hpp"
#include "onnxview/schema.hpp"
#include "onnxview/text_format.hpp"
#include "onnxview/verify.hpp"

using namespace onnxview;
using namespace tb;

static std::string path_of(const std::string& b, std::size_t off, const schema::message_desc& m = schema::msg_ModelProto) {
    char buf[256];
    auto r = field_path_at(b.data(), b.size(), off, m, buf, sizeof buf);
    REQUIRE(r.ok());
    CHECK(r.value() == std::string(buf).size());
    return buf;
}

TEST_CASE("schema lookups", "[schema]") {
    const auto* m = schema::find_message("onnx.ModelProto");
    REQUIRE(m == &schema::msg_ModelProto);
    CHECK(schema::find_message("TensorProto.Segment") == &schema::msg_TensorProto_Segment);
    CHECK(schema::find_message("onnx.Nope") == nullptr);
    CHECK(m->find(7)->message == &schema::msg_GraphProto);
    CHECK(m->find(9) == nullptr);
    CHECK(m->find(1000) == nullptr);
    CHECK(m->find(26, schema::release(1, 12)) == nullptr);  // configuration: 1.18
    CHECK(m->find(25, schema::release(1, 12)) != nullptr);  // functions: 1.10
    const auto* t = schema::msg_TensorProto.find(4);
    CHECK(std::string(t->name) == "float_data");
    CHECK(t->packed);
    CHECK(t->type == schema::type::float_);
    CHECK(!schema::msg_TensorProto.find(1)->packed);
    CHECK(schema::msg_TypeProto.find(7)->label == schema::label::oneof);
    CHECK(schema::msg_TypeProto.find(7)->since > schema::release(1, 12));
    CHECK(std::string(schema::msg_TypeProto.oneof_names[0]) == "value");
    CHECK(schema::msg_AttributeProto.find(20)->enum_type == &schema::enum_AttributeProto_AttributeType);
    CHECK(std::string(schema::enum_AttributeProto_AttributeType.find(14)->name) == "TYPE_PROTOS");
    CHECK(std::string(schema::msg_TensorProto.find("int32_data")->json_name) == "int32Data");
    for (const auto* md : schema::all_messages()) {
        CHECK(md->field_count <= 32);  // the printers' per-message stat array
        for (std::size_t i = 1; i < md->field_count; ++i) CHECK(md->fields[i - 1].number < md->fields[i].number);
        for (const auto& f : md->all_fields()) CHECK(md->find(f.number) == &f);
        const schema::field_desc* doc = md->find("doc_string");
        CHECK(md->doc_string == (doc != nullptr ? doc->number : 0u));
    }
    // onnx.proto's numbers, written out.
    CHECK(schema::msg_NodeProto.doc_string == 6);
    CHECK(schema::msg_TensorProto.doc_string == 12);
    CHECK(schema::msg_ModelProto.doc_string == 6);
    CHECK(schema::msg_TensorShapeProto.doc_string == 0);
}

TEST_CASE("field_path_at names nested fields", "[field_path]") {
    const std::string attr = L(1, "t") + L(5, V(1, 2) + V(1, 3) + L(8, "w"));
    const std::string node0 = L(4, "Add");
    const std::string node1 = L(4, "Conv") + L(5, L(1, "a")) + L(5, attr);
    const std::string graph = L(1, node0) + L(1, node1) + L(2, "g");
    const std::string model = V(1, 8) + L(7, graph);
    CHECK(path_of(model, 0) == "ir_version");
    CHECK(path_of(model, 1) == "ir_version");
    CHECK(path_of(model, 2) == "graph");
    // the `t` attribute's dims: find the second dims varint (value 3)
    const std::size_t dims1 = model.find(V(1, 3));
    REQUIRE(dims1 != std::string::npos);
    CHECK(path_of(model, dims1) == "graph.node[1].attribute[1].t.dims[1]");
    CHECK(path_of(model, model.find("w")) == "graph.node[1].attribute[1].t.name");
    CHECK(path_of(model, model.find("Add")) == "graph.node[0].op_type");
    CHECK(path_of(model, model.size() - 1) == "graph.name");
    CHECK(path_of(model, model.size()) == "");
}

TEST_CASE("field_path_at on packed, unknown and broken fields", "[field_path]") {
    const std::string packed = tag(7, 2) + varint(4) + varint(1) + varint(300) + varint(5);
    const std::string t = V(1, 2) + packed + V(99, 1);
    CHECK(path_of(t, t.find(varint(300)), schema::msg_TensorProto) == "int64_data[1]");
    CHECK(path_of(t, t.size() - 1, schema::msg_TensorProto) == "99");
    // a length running past the end: the error offset lands inside `graph`'s node
    const std::string broken = V(1, 8) + L(7, L(1, tag(4, 2) + varint(50) + "abc"));
    std::string out(256, '\0');
    auto r = field_path_at(broken.data(), broken.size(), broken.size() - 3, schema::msg_ModelProto,
                           &out[0], out.size());
    REQUIRE(r.ok());
    CHECK(std::string(out.c_str()) == "graph.node[0].op_type");
    // validation reports an offset that resolves inside the broken field
    const error e = verify(broken.data(), broken.size(), schema::msg_ModelProto);
    REQUIRE(e.code != errc::ok);
    r = field_path_at(broken.data(), broken.size(), e.offset, schema::msg_ModelProto, &out[0], out.size());
    REQUIRE(r.ok());
    CHECK(std::string(out.c_str()) == "graph.node[0].op_type");
}

TEST_CASE("field_path_at buffer handling", "[field_path]") {
    const std::string model = L(7, L(1, L(4, "Add")));
    char small[6];
    auto r = field_path_at(model.data(), model.size(), model.size() - 1, schema::msg_ModelProto, small, sizeof small);
    CHECK(r.err().code == errc::buffer_too_small);
    CHECK(r.err().offset == std::string("graph.node[0].op_type").size());
    CHECK(std::string(small) == "graph");
    r = field_path_at(model.data(), model.size(), model.size() + 1, schema::msg_ModelProto, small, sizeof small);
    CHECK(r.err().code == errc::invalid_argument);
}
