// tensor_data: every data type in raw and typed (packed and unpacked) form,
// the size/type/dims rules, zero-copy spans against alignment, external
// payloads through the callback and sparse indices (the testdata/ models:
// tensor_testdata_test.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "onnxview/external_source.hpp"
#include "onnxview/model.hpp"
#include "onnxview/sparse_data.hpp"
#include "onnxview/tensor_data.hpp"
#include "../wire_builder.hpp"

using namespace onnxview;
using onnxview::testing::wire_builder;

#include "tensor_vectors.hpp"

using namespace onnxview::tensor_test;


TEST_CASE("data type table: 26 types, names, bits, fields") {
    CHECK(find_data_type_info(0) == nullptr);
    CHECK(find_data_type_info(27) == nullptr);
    CHECK(find_data_type_info(99) == nullptr);
    CHECK(find_data_type_info(-1) == nullptr);
    for (std::int32_t t = 1; t <= max_data_type; ++t) {
        const data_type_info* i = find_data_type_info(t);
        REQUIRE(i != nullptr);
        CHECK(i->type == t);
        CHECK(std::string(i->name) == data_type_name(t));
    }
    CHECK(info_of(data_type::complex128).bits == 128);
    CHECK(info_of(data_type::complex128).field == typed_field::double_data);
    CHECK(info_of(data_type::uint32).field == typed_field::uint64_data);
    CHECK(info_of(data_type::int4).bits == 4);
    CHECK(info_of(data_type::int2).elements_per_entry == 4);
    CHECK(info_of(data_type::boolean).field == typed_field::int32_data);
    static_assert(std::is_same<element_type_t<data_type::float16>, std::uint16_t>::value, "");
    static_assert(std::is_same<element_type_t<data_type::int4>, std::int8_t>::value, "");
    static_assert(std::is_same<element_type_t<data_type::complex64>, std::complex<float>>::value, "");
    static_assert(std::is_same<element_type_t<data_type::string>, std::string_view>::value, "");
    CHECK(std::string(typed_field_name(typed_field::uint64_data)) == "uint64_data");
    CHECK(std::string(storage_kind_name(storage_kind::external)) == "external");
}

TEST_CASE("every data type in raw_data") {
    for (const vec& v : vectors()) {
        INFO(data_type_name(static_cast<std::int32_t>(v.type)));
        const wire_builder b = raw_tensor(v);
        auto t = parse_tensor(b.str().data(), b.str().size());
        auto d = tensor_data::make(t);
        REQUIRE(d.ok());
        CHECK(d->storage() == storage_kind::raw);
        CHECK(d->describe().byte_size == raw_bytes(v).size());
        CHECK(d->bytes() == raw_bytes(v));
        check_all_accessors(v, *d);
        auto s = describe_storage(t);
        REQUIRE(s.ok());
        CHECK(s->kind == storage_kind::raw);
        CHECK(s->offset == static_cast<std::uint64_t>(t.raw_data().data() - b.str().data()));
    }
}

TEST_CASE("every data type in its typed field, packed and unpacked") {
    for (bool packed : {true, false}) {
        for (const vec& v : vectors()) {
            INFO(data_type_name(static_cast<std::int32_t>(v.type)) << (packed ? " packed" : " unpacked"));
            const wire_builder b = typed_tensor(v, packed);
            auto t = parse_tensor(b.str().data(), b.str().size());
            auto d = tensor_data::make(t);
            REQUIRE(d.ok());
            CHECK(d->storage() == storage_kind::typed);
            CHECK(d->describe().entry_count == typed_entries(v).size());
            CHECK(d->bytes().empty());
            check_all_accessors(v, *d);
        }
    }
}

TEST_CASE("typed fields split into several chunks and mixed encodings") {
    const vec v{data_type::int16, {0x8000, 0xFFFF, 0, 0x7FFF, 0xEF6E}, {-32768, -1, 0, 32767, -4242}};
    auto e = typed_entries(v);
    wire_builder b = tensor_header(v);
    add_typed(b, typed_field::int32_data, {e[0], e[1]}, true);
    b.field_bytes(8, "between");
    add_typed(b, typed_field::int32_data, {e[2]}, false);
    add_typed(b, typed_field::int32_data, {e[3], e[4]}, true);
    auto d = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
    REQUIRE(d.ok());
    check_all_accessors(v, *d);
}

// The blocks concatenated, and how many there were.
std::pair<std::string, int> joined_blocks(const tensor_data& d) {
    std::string all;
    int n = 0;
    for (std::string_view b : d.blocks()) {
        all.append(b.data(), b.size());
        ++n;
    }
    return {all, n};
}

TEST_CASE("blocks(): raw_data as one block, float/double chunks and unpacked entries in raw layout") {
    for (const vec& v : vectors()) {
        INFO(data_type_name(static_cast<std::int32_t>(v.type)));
        const std::string raw = raw_tensor(v).str();
        auto d = tensor_data::make(parse_tensor(raw.data(), raw.size()));
        REQUIRE(d.ok());
        REQUIRE(d->blocks().ok());
        CHECK(joined_blocks(*d) == std::make_pair(raw_bytes(v), raw_bytes(v).empty() ? 0 : 1));

        const typed_field field = info_of(v.type).field;
        const auto e = typed_entries(v);
        wire_builder b = tensor_header(v);  // two packed chunks around an unpacked entry
        add_typed(b, field, {e.begin(), e.begin() + e.size() / 2}, true);
        b.field_bytes(8, "between");
        if (e.size() > e.size() / 2) add_typed(b, field, {e[e.size() / 2]}, false);
        if (e.size() > e.size() / 2 + 1) add_typed(b, field, {e.begin() + e.size() / 2 + 1, e.end()}, true);
        auto t = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
        REQUIRE(t.ok());
        if (field == typed_field::float_data || field == typed_field::double_data) {
            REQUIRE(t->blocks().ok());
            const auto joined = joined_blocks(*t);
            CHECK(joined.first == raw_bytes(v));
            const std::size_t half = e.size() / 2;  // the first chunk may be empty
            CHECK(joined.second == 1 + (e.size() > half ? 1 : 0) + (e.size() > half + 1 ? 1 : 0));
        } else {  // varints: no bytes in raw layout to give
            CHECK(t->blocks().err().code == errc::bad_data_type);
            CHECK(joined_blocks(*t).second == 0);
        }
    }
    wire_builder s = tensor_header(data_type::string, {1});
    s.field_bytes(6, "abc");
    auto str = tensor_data::make(parse_tensor(s.str().data(), s.str().size()));
    REQUIRE(str.ok());
    CHECK(str->blocks().err().code == errc::bad_data_type);
}

TEST_CASE("negative int32_data entries are 10-byte varints and decode for INT8/INT16/INT4") {
    wire_builder b = tensor_header(data_type::int8, {2});
    b.field_int32(5, -128).field_int32(5, -1);
    // tag + 10 bytes each
    CHECK(b.str().size() == 2 + 2 + 2 * 11);
    auto d = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
    REQUIRE(d.ok());
    CHECK(d->at<std::int8_t>(0).value() == -128);
    CHECK(d->at<std::int8_t>(1).value() == -1);
    // ONNX 1.16's helper wrote packed INT4 bytes >= 0x80 as negative int32.
    wire_builder c = tensor_header(data_type::int4, {3});
    c.field_int32(5, static_cast<std::int8_t>(0xF8)).field_int32(5, 0x07);
    auto d4 = tensor_data::make(parse_tensor(c.str().data(), c.str().size()));
    REQUIRE(d4.ok());
    std::int8_t out[3];
    REQUIRE(d4->copy_to(out, 3).ok());
    CHECK(out[0] == -8);
    CHECK(out[1] == -1);
    CHECK(out[2] == 7);
    // Entries wider than the element are masked, not rejected.
    wire_builder u = tensor_header(data_type::uint8, {1});
    u.field_varint(5, 0x1FF);
    CHECK(tensor_data::make(parse_tensor(u.str().data(), u.str().size()))->at<std::uint8_t>(0).value() == 0xFF);
}

TEST_CASE("element count: scalar, zero, negative and overflowing dims") {
    auto count = [](std::initializer_list<std::int64_t> dims) {
        wire_builder b = tensor_header(data_type::float32, dims);
        return element_count(parse_tensor(b.str().data(), b.str().size()));
    };
    CHECK(count({}).value() == 1);
    CHECK(count({0, 3}).value() == 0);
    CHECK(count({2, 3, 4}).value() == 24);
    CHECK(count({-1, 3}).err().code == errc::bad_dims);
    CHECK(count({3, -5}).err().code == errc::bad_dims);
    CHECK(count({1ll << 32, 1ll << 32}).err().code == errc::bad_dims);
    CHECK(count({1ll << 32, 1ll << 31}).value() == (1ull << 63));
    CHECK(count({1ll << 40, 1ll << 40, 0}).value() == 0);  // overflow cancelled by a zero
    CHECK(count({0, -1}).err().code == errc::bad_dims);
    // Packed dims (proto3 writers).
    wire_builder p;
    p.packed_varint(1, {2, 5}).field_int32(2, 1);
    CHECK(element_count(parse_tensor(p.str().data(), p.str().size())).value() == 10);

    // N fits but N x 4 bytes does not: bad_dims, and no allocation or read.
    wire_builder big = tensor_header(data_type::float32, {1ll << 62, 2});
    big.field_bytes(9, std::string(8, '\0'));
    CHECK(tensor_data::make(parse_tensor(big.str().data(), big.str().size())).err().code == errc::bad_dims);
    // A huge count with a tiny payload: a size mismatch, nothing else.
    wire_builder huge = tensor_header(data_type::uint8, {1ll << 62});
    huge.field_bytes(9, std::string(8, '\0'));
    CHECK(tensor_data::make(parse_tensor(huge.str().data(), huge.str().size())).err().code ==
          errc::payload_size_mismatch);
    wire_builder huge_typed = tensor_header(data_type::int32, {1ll << 61});
    huge_typed.field_varint(5, 1);
    CHECK(tensor_data::make(parse_tensor(huge_typed.str().data(), huge_typed.str().size())).err().code ==
          errc::payload_size_mismatch);
    wire_builder neg = tensor_header(data_type::float32, {-2});
    neg.field_bytes(9, std::string(8, '\0'));
    CHECK(tensor_data::make(parse_tensor(neg.str().data(), neg.str().size())).err().code == errc::bad_dims);
}

TEST_CASE("scalar and empty tensors") {
    wire_builder s;
    s.field_int32(2, 1).field_bytes(9, std::string("\x00\x00\xe8\x40", 4));  // 7.25f
    auto d = tensor_data::make(parse_tensor(s.str().data(), s.str().size()));
    REQUIRE(d.ok());
    CHECK(d->size() == 1);
    CHECK(d->at<float>(0).value() == 7.25f);
    wire_builder e = tensor_header(data_type::float32, {0, 3});
    auto de = tensor_data::make(parse_tensor(e.str().data(), e.str().size()));
    REQUIRE(de.ok());
    CHECK(de->storage() == storage_kind::none);
    CHECK(de->size() == 0);
    CHECK(de->as_span<float>().value().empty());
    float none[1];
    CHECK(de->copy_to(none, 0).value() == 0);
    int iterations = 0;
    for (float x : de->elements<float>()) iterations += x != 0 ? 1 : 1;
    CHECK(iterations == 0);
    // Empty raw_data with zero elements is fine (proto2 writers keep it).
    wire_builder er = tensor_header(data_type::int32, {2, 0});
    er.field_bytes(9, "");
    auto der = tensor_data::make(parse_tensor(er.str().data(), er.str().size()));
    REQUIRE(der.ok());
    CHECK(der->storage() == storage_kind::raw);
    // One element but no payload at all.
    wire_builder np = tensor_header(data_type::int32, {1});
    CHECK(tensor_data::make(parse_tensor(np.str().data(), np.str().size())).err().code ==
          errc::payload_size_mismatch);
}

TEST_CASE("payload size is exact: raw shorter or longer, typed fewer or more entries") {
    for (const vec& v : vectors()) {
        INFO(data_type_name(static_cast<std::int32_t>(v.type)));
        const std::string raw = raw_bytes(v);
        wire_builder shorter = tensor_header(v);
        shorter.field_bytes(9, raw.substr(0, raw.size() - 1));
        CHECK(tensor_data::make(parse_tensor(shorter.str().data(), shorter.str().size())).err().code ==
              errc::payload_size_mismatch);
        wire_builder longer = tensor_header(v);
        longer.field_bytes(9, raw + '\0');
        auto lr = tensor_data::make(parse_tensor(longer.str().data(), longer.str().size()));
        CHECK(lr.err().code == errc::payload_size_mismatch);
        // The error points at raw_data's payload.
        CHECK(lr.err().offset == longer.str().size() - raw.size() - 1);

        const data_type_info& info = info_of(v.type);
        auto entries = typed_entries(v);
        auto fewer = entries;
        fewer.pop_back();
        wire_builder tf = tensor_header(v);
        add_typed(tf, info.field, fewer, true);
        CHECK(tensor_data::make(parse_tensor(tf.str().data(), tf.str().size())).err().code ==
              errc::payload_size_mismatch);
        auto more = entries;
        more.push_back(0);
        wire_builder tm = tensor_header(v);
        add_typed(tm, info.field, more, false);
        CHECK(tensor_data::make(parse_tensor(tm.str().data(), tm.str().size())).err().code ==
              errc::payload_size_mismatch);
        // describe_storage applies the same rules.
        CHECK(describe_storage(parse_tensor(tm.str().data(), tm.str().size())).err().code ==
              errc::payload_size_mismatch);
    }
}

TEST_CASE("sub-byte types: one packed byte per int32 entry, odd counts, checker's 1/8 bound refused") {
    // 9 INT4 elements: ceil(9/2) = 5 entries. The checker would accept 2.
    wire_builder ok = tensor_header(data_type::int4, {9});
    add_typed(ok, typed_field::int32_data, {0x21, 0x43, 0x65, 0x87, 0x09}, true);
    auto d = tensor_data::make(parse_tensor(ok.str().data(), ok.str().size()));
    REQUIRE(d.ok());
    std::int8_t out[9];
    REQUIRE(d->copy_to(out, 9).value() == 9);
    const std::int8_t want[9] = {1, 2, 3, 4, 5, 6, 7, -8, -7};
    for (int i = 0; i < 9; ++i) CHECK(out[i] == want[i]);
    wire_builder lenient = tensor_header(data_type::int4, {9});
    add_typed(lenient, typed_field::int32_data, {0x21, 0x43}, true);
    CHECK(tensor_data::make(parse_tensor(lenient.str().data(), lenient.str().size())).err().code ==
          errc::payload_size_mismatch);
    // 2-bit: 5 elements in ceil(5/4) = 2 bytes; x0 | x1<<2 | x2<<4 | x3<<6.
    wire_builder u2 = tensor_header(data_type::uint2, {5});
    u2.field_bytes(9, std::string("\xE4\x02", 2));  // 0,1,2,3 | 2
    auto d2 = tensor_data::make(parse_tensor(u2.str().data(), u2.str().size()));
    REQUIRE(d2.ok());
    std::uint8_t o2[5];
    REQUIRE(d2->copy_to(o2, 5).ok());
    CHECK((o2[0] == 0 && o2[1] == 1 && o2[2] == 2 && o2[3] == 3 && o2[4] == 2));
    CHECK(d2->at<std::uint8_t>(4).value() == 2);
    CHECK(d2->as_span<std::uint8_t>().err().code == errc::bad_data_type);  // no span of unpacked values
}

TEST_CASE("type and storage conflicts") {
    // Unknown data type numbers.
    for (std::int32_t t : {0, 27, 99, -3}) {
        wire_builder b;
        b.field_varint(1, 1).field_int32(2, t).field_bytes(9, "abcd");
        CHECK(tensor_data::make(parse_tensor(b.str().data(), b.str().size())).err().code == errc::bad_data_type);
    }
    // STRING with raw_data.
    wire_builder sr = tensor_header(data_type::string, {1});
    sr.field_bytes(9, "abc");
    CHECK(tensor_data::make(parse_tensor(sr.str().data(), sr.str().size())).err().code == errc::bad_data_type);
    // A FLOAT tensor with int64_data (wrong typed field).
    wire_builder wf = tensor_header(data_type::float32, {1});
    wf.field_varint(7, 3);
    CHECK(tensor_data::make(parse_tensor(wf.str().data(), wf.str().size())).err().code == errc::bad_data_type);
    // raw_data and a typed field at once.
    wire_builder both = tensor_header(data_type::float32, {1});
    both.field_float(4, 1.0f).field_bytes(9, std::string(4, '\0'));
    CHECK(tensor_data::make(parse_tensor(both.str().data(), both.str().size())).err().code ==
          errc::payload_size_mismatch);
    // A malformed tensor: the wire error comes through.
    const std::string bad("\x0a\x05\x01", 3);
    CHECK(tensor_data::make(parse_tensor(bad.data(), bad.size())).err().code != errc::ok);
    // Segments are not interpreted: checked against dims like any tensor.
    wire_builder seg = tensor_header(data_type::uint8, {3});
    seg.field_message(3, wire_builder().field_varint(1, 0).field_varint(2, 2)).field_bytes(9, "abc");
    auto st = parse_tensor(seg.str().data(), seg.str().size());
    CHECK(st.has_segment());
    CHECK(st.segment().end() == 2);
    CHECK(tensor_data::make(st).ok());
}

TEST_CASE("STRING tensors") {
    wire_builder b = tensor_header(data_type::string, {3});
    b.field_bytes(6, "").field_bytes(6, "hello").field_bytes(6, std::string("\x00\xff", 2));
    auto d = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
    REQUIRE(d.ok());
    CHECK(d->storage() == storage_kind::typed);
    std::vector<std::string_view> got;
    for (std::string_view s : d->elements<std::string_view>()) got.push_back(s);
    REQUIRE(got.size() == 3);
    CHECK(got[1] == "hello");
    CHECK(got[2] == std::string_view("\x00\xff", 2));
    std::string_view out[3];
    CHECK(d->copy_to(out, 3).value() == 3);
    CHECK(out[1] == "hello");
    CHECK(d->at<std::string_view>(2).value() == got[2]);
    CHECK(d->scalars<double>().err().code == errc::bad_data_type);
    wire_builder few = tensor_header(data_type::string, {3});
    few.field_bytes(6, "x");
    CHECK(tensor_data::make(parse_tensor(few.str().data(), few.str().size())).err().code ==
          errc::payload_size_mismatch);
}

TEST_CASE("zero-copy span: aligned, unaligned (buffer shifted by one byte), copy-out unaffected") {
    const vec v{data_type::float32, {fbits(1.5f), fbits(-2.0f), fbits(3.25f), fbits(1e-3f)}, {}};
    const std::string msg = raw_tensor(v).str();
    const std::size_t raw_off = msg.size() - 16;
    alignas(16) char storage[256];
    for (std::size_t shift = 0; shift < 8; ++shift) {
        std::memcpy(storage + shift, msg.data(), msg.size());
        auto t = parse_tensor(storage + shift, msg.size());
        auto d = tensor_data::make(t);
        REQUIRE(d.ok());
        const bool aligned = (reinterpret_cast<std::uintptr_t>(storage + shift + raw_off) % alignof(float)) == 0;
        auto s = d->as_span<float>();
        INFO("shift " << shift);
        if (!host_is_little_endian) {  // s390x: views of little-endian floats are refused
            CHECK(s.err().code == errc::not_little_endian);
        } else if (aligned) {
            REQUIRE(s.ok());
            CHECK(s->data() == reinterpret_cast<const float*>(storage + shift + raw_off));  // no copy
            CHECK((*s)[2] == 3.25f);
            CHECK(d->describe().alignment >= 4);
        } else {
            CHECK(s.err().code == errc::unaligned);
            CHECK(d->describe().alignment < 4);
        }
        float out[4];
        REQUIRE(d->copy_to(out, 4).value() == 4);
        CHECK((out[0] == 1.5f && out[1] == -2.0f && out[2] == 3.25f && out[3] == 1e-3f));
        CHECK(tensor_data::make(t).value().as_span<float>().ok() == (aligned && host_is_little_endian));
        float out2[4];
        CHECK(tensor_data::make(t).value().copy_to(out2, 4).value() == 4);
        CHECK(std::memcmp(out, out2, sizeof out) == 0);
        CHECK(d->as_span<double>().err().code == errc::bad_data_type);
        CHECK(d->as_span<std::uint8_t>().err().code == errc::bad_data_type);
    }
    // 1-byte types are never unaligned.
    const std::string u8 = raw_tensor(vec{data_type::uint8, {1, 2, 3}, {}}).str();
    std::memcpy(storage + 1, u8.data(), u8.size());
    CHECK(tensor_data::make(parse_tensor(storage + 1, u8.size()))->as_span<std::uint8_t>().ok());
}

TEST_CASE("zero-copy span over typed float_data/double_data in one packed chunk only") {
    const vec v{data_type::float64, {dbits(1.5), dbits(-1.0)}, {}};
    alignas(16) char storage[128];
    const std::string one = typed_tensor(v, true).str();
    const std::size_t payload_off = one.size() - 16;
    for (std::size_t shift = 0; shift < 8; ++shift) {
        std::memcpy(storage + shift, one.data(), one.size());
        auto d = tensor_data::make(parse_tensor(storage + shift, one.size()));
        REQUIRE(d.ok());
        auto s = d->as_span<double>();
        if (!host_is_little_endian) {
            CHECK(s.err().code == errc::not_little_endian);
        } else if ((reinterpret_cast<std::uintptr_t>(storage + shift + payload_off) % alignof(double)) == 0) {  // 4 on i686
            REQUIRE(s.ok());
            CHECK((*s)[1] == -1.0);
        } else {
            CHECK(s.err().code == errc::unaligned);
        }
        // Copied out whole (one memcpy where the chunk is the array) at any address.
        double out[2] = {0, 0};
        REQUIRE(d->copy_to(out, 2).value() == 2);
        CHECK((out[0] == 1.5 && out[1] == -1.0));
    }
    const std::string unpacked = typed_tensor(v, false).str();
    CHECK(tensor_data::make(parse_tensor(unpacked.data(), unpacked.size()))->as_span<double>().err().code ==
          errc::bad_data_type);
    const std::string ints = typed_tensor(vec{data_type::int32, {1, 2}, {}}, true).str();
    CHECK(tensor_data::make(parse_tensor(ints.data(), ints.size()))->as_span<std::int32_t>().err().code ==
          errc::bad_data_type);  // varints: no array to view
}

TEST_CASE("BOOL span checks its bytes; iteration maps non-zero to true") {
    wire_builder b = tensor_header(data_type::boolean, {3});
    b.field_bytes(9, std::string("\x01\x00\x01", 3));
    auto d = tensor_data::make(parse_tensor(b.str().data(), b.str().size()));
    REQUIRE(d.ok());
    auto s = d->as_span<bool>();
    REQUIRE(s.ok());
    CHECK((*s)[0]);
    CHECK(!(*s)[1]);
    wire_builder c = tensor_header(data_type::boolean, {2});
    c.field_bytes(9, std::string("\x02\x00", 2));
    auto dc = tensor_data::make(parse_tensor(c.str().data(), c.str().size()));
    REQUIRE(dc.ok());
    CHECK(dc->as_span<bool>().err().code == errc::bad_data_type);
    bool out[2];
    REQUIRE(dc->copy_to(out, 2).ok());
    CHECK(out[0]);
    CHECK(!out[1]);
}

namespace {
onnxview::error append_chunk(void* user, const char* data, std::size_t size) {
    static_cast<std::string*>(user)->append(data, size);
    return {};
}
}  // namespace

TEST_CASE("for_each_raw_chunk: the raw_data layout from raw and typed storage, every data type") {
    for (bool packed : {true, false}) {
        for (const vec& v : vectors()) {
            INFO(data_type_name(static_cast<std::int32_t>(v.type)) << (packed ? " packed" : " unpacked"));
            const wire_builder typed = typed_tensor(v, packed);
            const wire_builder raw = raw_tensor(v);
            for (const wire_builder* b : {&typed, &raw}) {
                auto d = tensor_data::make(parse_tensor(b->str().data(), b->str().size()));
                REQUIRE(d.ok());
                std::string out;
                CHECK_FALSE(for_each_raw_chunk(*d, append_chunk, &out));
                CHECK(out == raw_bytes(v));
            }
        }
    }
    wire_builder s = tensor_header(data_type::string, {1});
    s.field_bytes(6, "abc");
    auto str = tensor_data::make(parse_tensor(s.str().data(), s.str().size()));
    REQUIRE(str.ok());
    std::string out;
    CHECK(for_each_raw_chunk(*str, append_chunk, &out).code == errc::bad_data_type);
    CHECK(out.empty());
}
