// The protozero-checked competitor: the protozero walk (walk_protozero.cpp)
// reading with libprotobuf's meaning, as the onnxview cursors do: a field of
// another wire type than its type's is an unknown field (skipped), and so is
// an out-of-range value of the closed enum AttributeProto.type; nesting
// deeper than libprotobuf's 100 messages is an error; a singular field's last
// occurrence wins, and a oneof's last member. Beside the plain protozero row,
// it is what those checks cost a protozero reader (bench/analysis.md,
// "The same checks in protozero"). A separate walker, not a template shared
// with the plain one: sharing it changed how the compiler inlines the plain
// walk (+5% instructions), and the plain row is the reference.
//
// protozero reports malformed input by exceptions; they are caught at the
// entry points.
#include <sys/mman.h>

#include <protozero/pbf_reader.hpp>

#include "common.hpp"
#include "protozero_walk.hpp"

namespace bench {
namespace {

using protozero::data_view;
using protozero::pbf_reader;
using protozero::pbf_wire_type;

// libprotobuf's default recursion limit.
constexpr std::uint32_t max_depth = 100;
// AttributeProto.AttributeType's values are 0 (UNDEFINED) to 14 (TYPE_PROTOS).
constexpr std::int32_t max_attribute_type = 14;

struct depth_exceeded : protozero::exception {
    const char* what() const noexcept override { return "nesting deeper than 100 messages"; }
};

struct walker {
    walk_result& r;
    bool payloads;
    std::uint32_t depth = 0;  // of the message being read (the model: 0)

    void str(pbf_reader& p) { r.string_bytes += p.get_view().size(); }
    void str(data_view v) noexcept { r.string_bytes += v.size(); }
    void num(std::uint64_t v) noexcept { r.int_sum += v; }
    static bool packed(const pbf_reader& p) { return p.wire_type() == pbf_wire_type::length_delimited; }

    // Whether a field has the wire type its type is read with: one that has
    // another is an unknown field to libprotobuf, and is skipped.
    static bool is(const pbf_reader& p, pbf_wire_type t) { return p.wire_type() == t; }
    static bool is_len(const pbf_reader& p) { return is(p, pbf_wire_type::length_delimited); }
    static bool is_varint(const pbf_reader& p) { return is(p, pbf_wire_type::varint); }

    // One level of nesting, for the life of a message's walk.
    struct nested {
        walker& w;
        explicit nested(walker& to) : w(to) {
            if (++w.depth > max_depth) throw depth_exceeded{};
        }
        ~nested() { --w.depth; }
        nested(const nested&) = delete;
        nested& operator=(const nested&) = delete;
    };

    // An occurrence of TensorProto.dims or SparseTensorProto.dims.
    void dims(pbf_reader& p) {
        if (packed(p)) {
            for (std::int64_t d : p.get_packed_int64()) {
                ++r.dims;
                num(static_cast<std::uint64_t>(d));
            }
        } else if (is_varint(p)) {
            ++r.dims;
            num(static_cast<std::uint64_t>(p.get_int64()));
        } else {
            p.skip();
        }
    }

    void tensor(pbf_reader p) {
        const nested level(*this);
        ++r.tensors;
        // Only raw_data and int32_data need data_type to be converted, and
        // data_type may come after them on the wire: those two are converted
        // once the message is read; the other typed fields on the way.
        std::int32_t dtype = 0;
        data_view raw, name;
        bool int32s = false;
        tensor_sum s;
        const pbf_reader whole = p;
        while (p.next()) {
            switch (p.tag()) {
                case 1: dims(p); break;
                case 2:
                    if (is_varint(p)) dtype = p.get_int32();
                    else p.skip();
                    break;
                case 8:
                    if (is_len(p)) name = p.get_view();
                    else p.skip();
                    break;
                case 9:
                    if (payloads && is_len(p)) raw = p.get_view();
                    else p.skip();
                    break;
                case 4:
                    if (!payloads) p.skip();
                    else if (packed(p)) protozero_fixed_block<float>(p, 1, s);
                    else if (is(p, pbf_wire_type::fixed32)) s.add(p.get_float());
                    else p.skip();
                    break;
                case 5:
                    int32s = int32s || packed(p) || is_varint(p);
                    p.skip();
                    break;
                case 7:
                    if (!payloads) p.skip();
                    else if (packed(p)) for (std::int64_t v : p.get_packed_int64()) s.add(double(v));
                    else if (is_varint(p)) s.add(double(p.get_int64()));
                    else p.skip();
                    break;
                case 10:
                    if (!payloads) p.skip();
                    else if (packed(p)) protozero_fixed_block<double>(p, 11, s);
                    else if (is(p, pbf_wire_type::fixed64)) s.add(p.get_double());
                    else p.skip();
                    break;
                case 11:
                    if (!payloads) p.skip();
                    else if (packed(p)) for (std::uint64_t v : p.get_packed_uint64()) s.add(double(v));
                    else if (is_varint(p)) s.add(double(p.get_uint64()));
                    else p.skip();
                    break;
                case 6:
                    if (payloads && is_len(p)) str(p);
                    else p.skip();
                    break;
                default: p.skip();
            }
        }
        str(name);
        num(static_cast<std::uint64_t>(dtype));
        if (!payloads) return;
        if (raw.size()) s.add_raw(dtype, raw.data(), raw.size());
        if (int32s) {
            pbf_reader q = whole;
            while (q.next(5)) {
                if (packed(q)) for (std::int32_t v : q.get_packed_int32()) s.add_int32_field(dtype, v);
                else if (is_varint(q)) s.add_int32_field(dtype, q.get_int32());
                else q.skip();
            }
        }
        s.finish(r);
    }

    void sparse(pbf_reader p) {
        const nested level(*this);
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                case 2:
                    if (is_len(p)) tensor(p.get_message());
                    else p.skip();
                    break;
                case 3: dims(p); break;
                default: p.skip();
            }
        }
    }

    void shape(pbf_reader p) {
        const nested level(*this);
        while (p.next(1)) {  // dim
            if (!is_len(p)) {
                p.skip();
                continue;
            }
            ++r.dims;
            const nested dim_level(*this);
            pbf_reader d = p.get_message();
            // value is a oneof: its last member wins.
            std::uint64_t value = 0;
            data_view param;
            std::uint32_t member = 0;
            while (d.next()) {
                switch (d.tag()) {
                    case 1:
                        if (is_varint(d)) {
                            value = static_cast<std::uint64_t>(d.get_int64());
                            member = 1;
                        } else {
                            d.skip();
                        }
                        break;
                    case 2:
                        if (is_len(d)) {
                            param = d.get_view();
                            member = 2;
                        } else {
                            d.skip();
                        }
                        break;
                    default: d.skip();
                }
            }
            if (member == 1) num(value);
            else if (member == 2) str(param);
        }
    }

    // TypeProto.Tensor and TypeProto.SparseTensor
    void tensor_type(pbf_reader p) {
        const nested level(*this);
        std::uint64_t elem = 0;
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                    if (is_varint(p)) elem = static_cast<std::uint64_t>(p.get_int32());
                    else p.skip();
                    break;
                case 2:
                    if (is_len(p)) shape(p.get_message());
                    else p.skip();
                    break;
                default: p.skip();
            }
        }
        num(elem);
    }

    // Sequence/Optional: field 1 is the element type
    void elem_holder(pbf_reader p) {
        const nested level(*this);
        while (p.next()) {
            if (p.tag() == 1 && is_len(p)) type(p.get_message());
            else p.skip();
        }
    }

    void type(pbf_reader p) {
        const nested level(*this);
        data_view denotation;
        while (p.next()) {
            if (!is_len(p)) {  // every field of TypeProto is a message or a string
                p.skip();
                continue;
            }
            switch (p.tag()) {
                case 1:
                case 8: tensor_type(p.get_message()); break;
                case 4:
                case 9: elem_holder(p.get_message()); break;
                case 5: {
                    const nested map_level(*this);
                    pbf_reader m = p.get_message();
                    std::uint64_t key = 0;
                    while (m.next()) {
                        switch (m.tag()) {
                            case 1:
                                if (is_varint(m)) key = static_cast<std::uint64_t>(m.get_int32());
                                else m.skip();
                                break;
                            case 2:
                                if (is_len(m)) type(m.get_message());
                                else m.skip();
                                break;
                            default: m.skip();
                        }
                    }
                    num(key);
                    break;
                }
                case 6: denotation = p.get_view(); break;
                case 7: {
                    const nested opaque_level(*this);
                    pbf_reader o = p.get_message();
                    data_view domain, name;
                    while (o.next()) {
                        if (o.tag() == 1 && is_len(o)) domain = o.get_view();
                        else if (o.tag() == 2 && is_len(o)) name = o.get_view();
                        else o.skip();
                    }
                    str(domain);
                    str(name);
                    break;
                }
                default: p.skip();
            }
        }
        str(denotation);
    }

    void value_info(pbf_reader p) {
        const nested level(*this);
        ++r.value_infos;
        data_view name;
        while (p.next()) {
            if (p.tag() == 1 && is_len(p)) name = p.get_view();
            else if (p.tag() == 2 && is_len(p)) type(p.get_message());
            else p.skip();
        }
        str(name);
    }

    void attribute(pbf_reader p) {
        const nested level(*this);
        ++r.attributes;
        // Singular scalars absent from the wire count as their defaults (0),
        // which add nothing to the sums.
        data_view name, ref_attr_name, s;
        std::uint64_t kind = 0, f = 0, i = 0;
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                    if (is_len(p)) name = p.get_view();
                    else p.skip();
                    break;
                case 21:
                    if (is_len(p)) ref_attr_name = p.get_view();
                    else p.skip();
                    break;
                case 4:
                    if (is_len(p)) s = p.get_view();
                    else p.skip();
                    break;
                case 20:
                    if (is_varint(p)) {
                        // A closed enum: a value it does not define is an unknown field.
                        const std::int32_t v = p.get_enum();
                        if (v >= 0 && v <= max_attribute_type) kind = static_cast<std::uint64_t>(v);
                    } else {
                        p.skip();
                    }
                    break;
                case 2:
                    if (is(p, pbf_wire_type::fixed32)) f = float_bits(p.get_float());
                    else p.skip();
                    break;
                case 3:
                    if (is_varint(p)) i = static_cast<std::uint64_t>(p.get_int64());
                    else p.skip();
                    break;
                case 7:
                    if (packed(p)) for (float v : p.get_packed_float()) num(float_bits(v));
                    else if (is(p, pbf_wire_type::fixed32)) num(float_bits(p.get_float()));
                    else p.skip();
                    break;
                case 8:
                    if (packed(p)) for (std::int64_t v : p.get_packed_int64()) num(static_cast<std::uint64_t>(v));
                    else if (is_varint(p)) num(static_cast<std::uint64_t>(p.get_int64()));
                    else p.skip();
                    break;
                case 9:
                    if (is_len(p)) str(p);
                    else p.skip();
                    break;
                case 5:
                case 10:
                    if (is_len(p)) tensor(p.get_message());
                    else p.skip();
                    break;
                case 6:
                case 11:
                    if (is_len(p)) graph(p.get_message());
                    else p.skip();
                    break;
                case 14:
                case 15:
                    if (is_len(p)) type(p.get_message());
                    else p.skip();
                    break;
                case 22:
                case 23:
                    if (is_len(p)) sparse(p.get_message());
                    else p.skip();
                    break;
                default: p.skip();
            }
        }
        str(name);
        str(ref_attr_name);
        str(s);
        num(kind);
        num(f);
        num(i);
    }

    void node(pbf_reader p) {
        const nested level(*this);
        ++r.nodes;
        data_view name, op_type, domain;
        while (p.next()) {
            if (!is_len(p)) {  // every field of NodeProto read here is a string or a message
                p.skip();
                continue;
            }
            switch (p.tag()) {
                case 1:
                case 2: str(p); break;
                case 3: name = p.get_view(); break;
                case 4: op_type = p.get_view(); break;
                case 7: domain = p.get_view(); break;
                case 5: attribute(p.get_message()); break;
                default: p.skip();
            }
        }
        str(name);
        str(op_type);
        str(domain);
    }

    void graph(pbf_reader p) {
        const nested level(*this);
        ++r.graphs;
        data_view name;
        while (p.next()) {
            if (!is_len(p)) {  // every field of GraphProto read here is a string or a message
                p.skip();
                continue;
            }
            switch (p.tag()) {
                case 1: node(p.get_message()); break;
                case 2: name = p.get_view(); break;
                case 5: tensor(p.get_message()); break;
                case 15: sparse(p.get_message()); break;
                case 11:
                case 12:
                case 13: value_info(p.get_message()); break;
                default: p.skip();
            }
        }
        str(name);
    }

    void opset(pbf_reader p) {
        const nested level(*this);
        data_view domain;
        std::uint64_t version = 0;
        while (p.next()) {
            if (p.tag() == 1 && is_len(p)) domain = p.get_view();
            else if (p.tag() == 2 && is_varint(p)) version = static_cast<std::uint64_t>(p.get_int64());
            else p.skip();
        }
        str(domain);
        num(version);
    }

    void function(pbf_reader p) {
        const nested level(*this);
        ++r.functions;
        data_view name, domain;
        while (p.next()) {
            if (!is_len(p)) {  // every field of FunctionProto read here is a string or a message
                p.skip();
                continue;
            }
            switch (p.tag()) {
                case 1: name = p.get_view(); break;
                case 10: domain = p.get_view(); break;
                case 4:
                case 5:
                case 6: str(p); break;
                case 7: node(p.get_message()); break;
                case 9: opset(p.get_message()); break;
                default: p.skip();
            }
        }
        str(name);
        str(domain);
    }

    void model(pbf_reader p) {
        std::uint64_t ir_version = 0;
        data_view producer;
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                    if (is_varint(p)) ir_version = static_cast<std::uint64_t>(p.get_int64());
                    else p.skip();
                    break;
                case 2:
                    if (is_len(p)) producer = p.get_view();
                    else p.skip();
                    break;
                case 8:
                    if (is_len(p)) opset(p.get_message());
                    else p.skip();
                    break;
                case 7:
                    if (is_len(p)) graph(p.get_message());
                    else p.skip();
                    break;
                case 20: {
                    if (!is_len(p)) {
                        p.skip();
                        break;
                    }
                    const nested level(*this);
                    pbf_reader t = p.get_message();
                    while (t.next()) {
                        if ((t.tag() == 1 || t.tag() == 2) && is_len(t)) graph(t.get_message());
                        else t.skip();
                    }
                    break;
                }
                case 25:
                    if (is_len(p)) function(p.get_message());
                    else p.skip();
                    break;
                default: p.skip();
            }
        }
        num(ir_version);
        str(producer);
    }
};

}  // namespace

// Workload 1 reads the model's own fields with the wire types checked already:
// the plain competitor's.
const competitor protozero_checked_competitor = {"protozero-checked", protozero_competitor.open,
                                                   protozero_walk<walker>, protozero_open_walk<walker>};

}  // namespace bench
