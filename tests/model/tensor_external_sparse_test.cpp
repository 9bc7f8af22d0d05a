// tensor_data beyond one embedded payload: external payloads through the
// callback, the typed-entry facts the checker uses, attribute tensors and
// sparse tensors with linear and coordinate indices.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "onnxview/external_source.hpp"
#include "onnxview/model.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"
#include "tensor_vectors.hpp"

using namespace onnxview;
using namespace onnxview::tensor_test;

namespace {
struct fake_files {
    std::string payload;
    int calls = 0;
    std::uint64_t last_expected = 0;
    static result<std::string_view> fetch(void* user, const tensor_view& t, std::uint64_t expected) {
        auto* self = static_cast<fake_files*>(user);
        ++self->calls;
        self->last_expected = expected;
        if (t.name() == "missing") return error(errc::not_found);
        return std::string_view(self->payload);
    }
};

wire_builder external_tensor(const char* name, std::int64_t n) {
    wire_builder b = tensor_header(data_type::float32, {n});
    b.field_bytes(8, name);
    b.field_message(13, wire_builder().field_bytes(1, "location").field_bytes(2, "w.bin"));
    b.field_message(13, wire_builder().field_bytes(1, "offset").field_bytes(2, "4096"));
    b.field_message(13, wire_builder().field_bytes(1, "length").field_bytes(2, "8"));
    b.field_varint(14, 1);
    return b;
}
}  // namespace

TEST_CASE("external payloads come through the callback") {
    fake_files files;
    files.payload = std::string("\x00\x00\xc0\x3f\x00\x00\x00\xc0", 8);  // 1.5f, -2.0f
    external_payload_source src{&files, &fake_files::fetch};
    const std::string msg = external_tensor("w", 2).str();
    auto t = parse_tensor(msg.data(), msg.size());

    auto info = describe_storage(t);  // no fetch
    REQUIRE(info.ok());
    CHECK(info->kind == storage_kind::external);
    CHECK(info->location == "w.bin");
    CHECK(info->offset == 4096);
    CHECK(info->alignment == 4096);
    CHECK(info->byte_size == 8);
    CHECK(files.calls == 0);

    CHECK(tensor_data::make(t).err().code == errc::invalid_argument);  // no source
    auto d = tensor_data::make(t, src);
    REQUIRE(d.ok());
    CHECK(files.calls == 1);
    CHECK(files.last_expected == 8);
    CHECK(d->storage() == storage_kind::external);
    CHECK(d->bytes().data() == files.payload.data());
    float out[2];
    REQUIRE(d->copy_to(out, 2).ok());
    CHECK((out[0] == 1.5f && out[1] == -2.0f));
    CHECK(d->at<float>(1).value() == -2.0f);
    CHECK(tensor_data::make(t, src).value().copy_to(out, 2).ok());

    files.payload.pop_back();  // the source returns the wrong size
    CHECK(tensor_data::make(t, src).err().code == errc::payload_size_mismatch);
    const std::string miss = external_tensor("missing", 2).str();
    CHECK(tensor_data::make(parse_tensor(miss.data(), miss.size()), src).err().code == errc::not_found);

    // EXTERNAL with inline payload, and STRING external.
    wire_builder inline_too = external_tensor("w", 2);
    inline_too.field_bytes(9, std::string(8, '\0'));
    CHECK(describe_storage(parse_tensor(inline_too.str().data(), inline_too.str().size())).err().code ==
          errc::payload_size_mismatch);
    wire_builder ext_str;
    ext_str.field_varint(1, 1).field_int32(2, 8).field_varint(14, 1);
    CHECK(describe_storage(parse_tensor(ext_str.str().data(), ext_str.str().size())).err().code ==
          errc::bad_data_type);
}

TEST_CASE("typed entry counts, required entries and the external location (the facts the checker uses)") {
    // all_typed_fields: the six typed fields in field-number order, covering every type's field.
    REQUIRE(sizeof(all_typed_fields) / sizeof(all_typed_fields[0]) == 6);
    for (std::size_t i = 1; i < 6; ++i)
        CHECK(static_cast<int>(all_typed_fields[i - 1]) < static_cast<int>(all_typed_fields[i]));
    for (std::int32_t dt = 1; dt <= max_data_type; ++dt) {
        const typed_field f = find_data_type_info(dt)->field;
        CHECK(std::find(std::begin(all_typed_fields), std::end(all_typed_fields), f) != std::end(all_typed_fields));
    }

    // Every data type, packed and unpacked: the entries present are the
    // entries required, in its own field and nowhere else.
    for (const vec& v : vectors()) {
        const data_type_info& info = info_of(v.type);
        INFO(info.name);
        for (bool packed : {true, false}) {
            const std::string msg = typed_tensor(v, packed).str();
            const tensor_view t = parse_tensor(msg.data(), msg.size());
            for (typed_field f : all_typed_fields) {
                const std::uint64_t want = f == info.field ? typed_entries(v).size() : 0;
                CHECK(typed_entry_count(t, f).value() == want);
            }
            CHECK(required_typed_entries(info, element_count_of(v)).value() == typed_entries(v).size());
        }
    }
    CHECK(typed_entry_count(parse_tensor("", 0), typed_field::none).value() == 0);
    wire_builder strings = tensor_header(data_type::string, {3});
    strings.field_bytes(6, "").field_bytes(6, "a").field_bytes(6, "bc");
    const tensor_view st = parse_tensor(strings.str().data(), strings.str().size());
    CHECK(typed_entry_count(st, typed_field::string_data).value() == 3);
    CHECK(typed_entry_count(st, typed_field::int32_data).value() == 0);

    // The rule in numbers: complex 2N, 4-bit ceil(N/2), 2-bit ceil(N/4), STRING N.
    auto required = [](data_type t, std::uint64_t n) { return required_typed_entries(info_of(t), n); };
    CHECK(required(data_type::float32, 3).value() == 3);
    CHECK(required(data_type::complex64, 3).value() == 6);
    CHECK(required(data_type::complex128, 3).value() == 6);
    CHECK(required(data_type::int4, 9).value() == 5);
    CHECK(required(data_type::uint2, 5).value() == 2);
    CHECK(required(data_type::string, 4).value() == 4);
    CHECK(required(data_type::int4, ~0ull).value() == (1ull << 63));
    CHECK(required(data_type::complex64, 1ull << 63).err().code == errc::bad_dims);

    // A packed fixed32 chunk that is not a multiple of 4 bytes: the wire error.
    wire_builder bad = tensor_header(data_type::float32, {1});
    bad.field_bytes(4, "abc");
    CHECK(typed_entry_count(parse_tensor(bad.str().data(), bad.str().size()), typed_field::float_data).err().code ==
          errc::bad_packed_length);

    // The external location: the entries as written, no strict parsing.
    const std::string ext = external_tensor("w", 2).str();
    external_location where = find_external_location(parse_tensor(ext.data(), ext.size()));
    CHECK(where.has_location);
    CHECK(where.location == "w.bin");
    CHECK(where.offset == 4096);
    CHECK(describe_storage(parse_tensor(ext.data(), ext.size()))->location == where.location);
    wire_builder odd = tensor_header(data_type::float32, {2});
    odd.field_message(13, wire_builder().field_bytes(1, "location").field_bytes(2, ""));
    odd.field_message(13, wire_builder().field_bytes(1, "offset").field_bytes(2, "12x"));
    where = find_external_location(parse_tensor(odd.str().data(), odd.str().size()));
    CHECK(where.has_location);  // present, if empty
    CHECK(where.location.empty());
    CHECK(where.offset == 0);   // not a plain decimal
    const std::string none = tensor_header(data_type::float32, {2}).str();
    where = find_external_location(parse_tensor(none.data(), none.size()));
    CHECK_FALSE(where.has_location);
    CHECK(where.offset == 0);
}

TEST_CASE("the same API for attribute tensors and sparse values") {
    const vec v{data_type::int32, {5, 0xFFFFFFFFu}, {5, -1}};
    // AttributeProto { name: "value", t: <tensor>, type: TENSOR }
    wire_builder attr;
    attr.field_bytes(1, "value").field_message(5, typed_tensor(v, true)).field_varint(20, 4);
    auto a = parse_as<attribute_view>(attr.str().data(), attr.str().size());
    auto d = tensor_data::make(a.t());
    REQUIRE(d.ok());
    check_all_accessors(v, *d);
}

TEST_CASE("sparse tensors: linear and coordinate indices") {
    // dense [4, 5], values at (0,1), (2,3), (3,4) -> linear 1, 13, 19.
    wire_builder values = tensor_header(data_type::float32, {3});
    values.field_bytes(9, raw_bytes(vec{data_type::float32, {fbits(1.5f), fbits(-2.0f), fbits(3.25f)}, {}}));
    wire_builder coords = tensor_header(data_type::int64, {3, 2});
    add_typed(coords, typed_field::int64_data, {0, 1, 2, 3, 3, 4}, true);
    wire_builder sp;
    sp.field_message(1, values).field_message(2, coords).field_varint(3, 4).field_varint(3, 5);
    auto s = sparse_data::make(parse_as<sparse_tensor_view>(sp.str().data(), sp.str().size()));
    REQUIRE(s.ok());
    CHECK(s->layout() == sparse_layout::coordinates);
    CHECK(s->nnz() == 3);
    CHECK(s->rank() == 2);
    CHECK(s->dense_size() == 20);
    CHECK(s->linear_index(0).value() == 1);
    CHECK(s->linear_index(1).value() == 13);
    CHECK(s->linear_index(2).value() == 19);
    CHECK(s->linear_index(3).err().code == errc::not_found);
    std::int64_t c[2];
    REQUIRE(s->coordinates(1, c, 2).ok());
    CHECK((c[0] == 2 && c[1] == 3));
    CHECK(s->coordinates(1, c, 1).code == errc::buffer_too_small);
    CHECK(s->validate_indices().ok());
    CHECK(s->values().at<float>(2).value() == 3.25f);

    // Linearized [NNZ] indices, raw.
    wire_builder lin = tensor_header(data_type::int64, {3});
    lin.field_bytes(9, raw_bytes(vec{data_type::int64, {1, 13, 19}, {}}));
    wire_builder sl;
    sl.field_message(1, values).field_message(2, lin).packed_varint(3, {4, 5});
    auto l = sparse_data::make(parse_as<sparse_tensor_view>(sl.str().data(), sl.str().size()));
    REQUIRE(l.ok());
    CHECK(l->layout() == sparse_layout::linear);
    CHECK(l->linear_index(1).value() == 13);
    REQUIRE(l->coordinates(2, c, 2).ok());
    CHECK((c[0] == 3 && c[1] == 4));
    CHECK(l->validate_indices().ok());

    auto make = [&](const wire_builder& idx, std::initializer_list<std::uint64_t> dims) {
        wire_builder b;
        b.field_message(1, values).field_message(2, idx);
        for (auto d : dims) b.field_varint(3, d);
        static std::string keep;
        keep = b.str();
        return sparse_data::make(parse_as<sparse_tensor_view>(keep.data(), keep.size()));
    };
    // Indices must be INT64.
    wire_builder i32 = tensor_header(data_type::int32, {3});
    add_typed(i32, typed_field::int32_data, {1, 2, 3}, true);
    CHECK(make(i32, {4, 5}).err().code == errc::bad_data_type);
    // NNZ disagreeing with the values' length.
    wire_builder two = tensor_header(data_type::int64, {2});
    add_typed(two, typed_field::int64_data, {1, 2}, true);
    CHECK(make(two, {4, 5}).err().code == errc::bad_dims);
    // [NNZ, rank] with the wrong rank.
    wire_builder r3 = tensor_header(data_type::int64, {3, 3});
    add_typed(r3, typed_field::int64_data, {0, 0, 0, 0, 0, 1, 0, 0, 2}, true);
    CHECK(make(r3, {4, 5}).err().code == errc::bad_dims);
    // Out of range: caught per access and by validate_indices.
    wire_builder oor = tensor_header(data_type::int64, {3});
    add_typed(oor, typed_field::int64_data, {1, 13, 20}, true);
    auto o = make(oor, {4, 5});
    REQUIRE(o.ok());
    CHECK(o->linear_index(1).value() == 13);
    CHECK(o->linear_index(2).err().code == errc::bad_dims);
    CHECK(o->validate_indices().code == errc::bad_dims);
    wire_builder negc = tensor_header(data_type::int64, {3, 2});
    add_typed(negc, typed_field::int64_data, {0, 1, 2, static_cast<std::uint64_t>(-1), 3, 4}, true);
    auto nc = make(negc, {4, 5});
    REQUIRE(nc.ok());
    CHECK(nc->linear_index(1).err().code == errc::bad_dims);
    // Unsorted and duplicate indices.
    wire_builder uns = tensor_header(data_type::int64, {3});
    add_typed(uns, typed_field::int64_data, {13, 1, 19}, true);
    CHECK(make(uns, {4, 5})->validate_indices().code == errc::bad_dims);
    wire_builder dup = tensor_header(data_type::int64, {3});
    add_typed(dup, typed_field::int64_data, {1, 1, 19}, true);
    CHECK(make(dup, {4, 5})->validate_indices().code == errc::bad_dims);
    // Negative dense dims.
    CHECK(make(lin, {4, static_cast<std::uint64_t>(-5)}).err().code == errc::bad_dims);
}

// ---------------------------------------------------------------------------
// testdata/ files, compared with numpy_helper.to_array run at test time.

TEST_CASE("BOOL in int32_data is true for any non-zero entry, as numpy_helper reads it") {
    // Regression: entries were masked to their low 8 bits, so 256 read as false.
    wire_builder t;
    t.unpacked_varint(1, {3}).field_varint(2, 9).unpacked_varint(5, {256, 1, 0});
    const auto tensor = parse_tensor(t.str().data(), t.str().size());
    auto d = tensor_data::make(tensor);
    REQUIRE(d.ok());
    std::vector<bool> got;
    for (bool b : d->elements<bool>()) got.push_back(b);
    CHECK(got == std::vector<bool>{true, true, false});
    CHECK(d->double_at(0, nullptr).value() == 1.0);
}
