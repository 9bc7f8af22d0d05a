// The protozero competitor: one pass per message with the generic
// protozero::pbf_reader, field numbers from onnx.proto (ONNX 1.12).
//
// Written as a production protozero reader is: a switch on the tag, the
// wire type checked for packable fields (protobuf parsers must accept packed
// and unpacked encodings of any repeated scalar), everything else skipped.
// walk_protozero_checked.cpp is the same walk with libprotobuf's checks and
// meaning, as the onnxview cursors read.
//
// protozero reports malformed input by exceptions; they are caught at the
// entry points.
#include <sys/mman.h>

#include <protozero/pbf_reader.hpp>

#include "common.hpp"
#include "protozero_walk.hpp"

namespace bench {
namespace {

using protozero::pbf_reader;
using protozero::pbf_wire_type;

struct walker {
    walk_result& r;
    bool payloads;

    void str(pbf_reader& p) { r.string_bytes += p.get_view().size(); }
    void num(std::uint64_t v) noexcept { r.int_sum += v; }
    static bool packed(const pbf_reader& p) { return p.wire_type() == pbf_wire_type::length_delimited; }

    void tensor(pbf_reader p) {
        ++r.tensors;
        // Only raw_data and int32_data need data_type to be converted, and
        // data_type may come after them on the wire: those two are converted
        // once the message is read; the other typed fields on the way.
        std::int32_t dtype = 0;
        protozero::data_view raw;
        bool int32s = false;
        tensor_sum s;
        const pbf_reader whole = p;
        while (p.next()) {
            switch (p.tag()) {
                case 1:  // dims
                    if (packed(p)) {
                        for (std::int64_t d : p.get_packed_int64()) {
                            ++r.dims;
                            num(static_cast<std::uint64_t>(d));
                        }
                    } else {
                        ++r.dims;
                        num(static_cast<std::uint64_t>(p.get_int64()));
                    }
                    break;
                case 2: dtype = p.get_int32(); break;
                case 8: str(p); break;
                case 9:
                    if (payloads) raw = p.get_view();
                    else p.skip();
                    break;
                case 4:
                    if (!payloads) p.skip();
                    else if (packed(p)) protozero_fixed_block<float>(p, 1, s);
                    else s.add(p.get_float());
                    break;
                case 5:
                    int32s = true;
                    p.skip();
                    break;
                case 7:
                    if (!payloads) p.skip();
                    else if (packed(p)) for (std::int64_t v : p.get_packed_int64()) s.add(double(v));
                    else s.add(double(p.get_int64()));
                    break;
                case 10:
                    if (!payloads) p.skip();
                    else if (packed(p)) protozero_fixed_block<double>(p, 11, s);
                    else s.add(p.get_double());
                    break;
                case 11:
                    if (!payloads) p.skip();
                    else if (packed(p)) for (std::uint64_t v : p.get_packed_uint64()) s.add(double(v));
                    else s.add(double(p.get_uint64()));
                    break;
                case 6:
                    if (payloads) str(p);
                    else p.skip();
                    break;
                default: p.skip();
            }
        }
        num(static_cast<std::uint64_t>(dtype));
        if (!payloads) return;
        if (raw.size()) s.add_raw(dtype, raw.data(), raw.size());
        if (int32s) {
            pbf_reader q = whole;
            while (q.next(5)) {
                if (packed(q)) for (std::int32_t v : q.get_packed_int32()) s.add_int32_field(dtype, v);
                else s.add_int32_field(dtype, q.get_int32());
            }
        }
        s.finish(r);
    }

    void sparse(pbf_reader p) {
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                case 2: tensor(p.get_message()); break;
                case 3:
                    if (packed(p)) {
                        for (std::int64_t d : p.get_packed_int64()) {
                            ++r.dims;
                            num(static_cast<std::uint64_t>(d));
                        }
                    } else {
                        ++r.dims;
                        num(static_cast<std::uint64_t>(p.get_int64()));
                    }
                    break;
                default: p.skip();
            }
        }
    }

    void shape(pbf_reader p) {
        while (p.next(1)) {  // dim
            ++r.dims;
            pbf_reader d = p.get_message();
            while (d.next()) {
                switch (d.tag()) {
                    case 1: num(static_cast<std::uint64_t>(d.get_int64())); break;
                    case 2: str(d); break;
                    default: d.skip();
                }
            }
        }
    }

    // TypeProto.Tensor and TypeProto.SparseTensor
    void tensor_type(pbf_reader p) {
        while (p.next()) {
            switch (p.tag()) {
                case 1: num(static_cast<std::uint64_t>(p.get_int32())); break;
                case 2: shape(p.get_message()); break;
                default: p.skip();
            }
        }
    }

    // Sequence/Optional: field 1 is the element type
    void elem_holder(pbf_reader p) {
        while (p.next()) {
            if (p.tag() == 1) type(p.get_message());
            else p.skip();
        }
    }

    void type(pbf_reader p) {
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                case 8: tensor_type(p.get_message()); break;
                case 4:
                case 9: elem_holder(p.get_message()); break;
                case 5: {
                    pbf_reader m = p.get_message();
                    while (m.next()) {
                        switch (m.tag()) {
                            case 1: num(static_cast<std::uint64_t>(m.get_int32())); break;
                            case 2: type(m.get_message()); break;
                            default: m.skip();
                        }
                    }
                    break;
                }
                case 6: str(p); break;
                case 7: {
                    pbf_reader o = p.get_message();
                    while (o.next()) {
                        if (o.tag() == 1 || o.tag() == 2) str(o);
                        else o.skip();
                    }
                    break;
                }
                default: p.skip();
            }
        }
    }

    void value_info(pbf_reader p) {
        ++r.value_infos;
        while (p.next()) {
            switch (p.tag()) {
                case 1: str(p); break;
                case 2: type(p.get_message()); break;
                default: p.skip();
            }
        }
    }

    void attribute(pbf_reader p) {
        ++r.attributes;
        // Singular scalars absent from the wire count as their defaults (0),
        // which add nothing to the sums.
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                case 4:
                case 21: str(p); break;
                case 20: num(static_cast<std::uint64_t>(p.get_enum())); break;
                case 2: num(float_bits(p.get_float())); break;
                case 3: num(static_cast<std::uint64_t>(p.get_int64())); break;
                case 7:
                    if (packed(p)) for (float v : p.get_packed_float()) num(float_bits(v));
                    else num(float_bits(p.get_float()));
                    break;
                case 8:
                    if (packed(p)) for (std::int64_t v : p.get_packed_int64()) num(static_cast<std::uint64_t>(v));
                    else num(static_cast<std::uint64_t>(p.get_int64()));
                    break;
                case 9: str(p); break;
                case 5:
                case 10: tensor(p.get_message()); break;
                case 6:
                case 11: graph(p.get_message()); break;
                case 14:
                case 15: type(p.get_message()); break;
                case 22:
                case 23: sparse(p.get_message()); break;
                default: p.skip();
            }
        }
    }

    void node(pbf_reader p) {
        ++r.nodes;
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                case 2:
                case 3:
                case 4:
                case 7: str(p); break;
                case 5: attribute(p.get_message()); break;
                default: p.skip();
            }
        }
    }

    void graph(pbf_reader p) {
        ++r.graphs;
        while (p.next()) {
            switch (p.tag()) {
                case 1: node(p.get_message()); break;
                case 2: str(p); break;
                case 5: tensor(p.get_message()); break;
                case 15: sparse(p.get_message()); break;
                case 11:
                case 12:
                case 13: value_info(p.get_message()); break;
                default: p.skip();
            }
        }
    }

    void opset(pbf_reader p) {
        while (p.next()) {
            switch (p.tag()) {
                case 1: str(p); break;
                case 2: num(static_cast<std::uint64_t>(p.get_int64())); break;
                default: p.skip();
            }
        }
    }

    void function(pbf_reader p) {
        ++r.functions;
        while (p.next()) {
            switch (p.tag()) {
                case 1:
                case 4:
                case 5:
                case 6:
                case 10: str(p); break;
                case 7: node(p.get_message()); break;
                case 9: opset(p.get_message()); break;
                default: p.skip();
            }
        }
    }

    void model(pbf_reader p) {
        while (p.next()) {
            switch (p.tag()) {
                case 1: num(static_cast<std::uint64_t>(p.get_int64())); break;
                case 2: str(p); break;
                case 8: opset(p.get_message()); break;
                case 7: graph(p.get_message()); break;
                case 20: {
                    pbf_reader t = p.get_message();
                    while (t.next()) {
                        if (t.tag() == 1 || t.tag() == 2) graph(t.get_message());
                        else t.skip();
                    }
                    break;
                }
                case 25: function(p.get_message()); break;
                default: p.skip();
            }
        }
    }
};

bool open(const char* path, walk_result& r, std::string& err) {
    file_map f;
    if (!f.open(path, MADV_RANDOM, err)) return false;
    try {
        // The model's own fields only: the graph is located, not read.
        pbf_reader m(f.data(), f.size());
        while (m.next()) {
            if (m.tag() == 7 && m.wire_type() == pbf_wire_type::length_delimited) {
                r.graphs = 1;
                m.skip();
            } else if (m.tag() == 2 && m.wire_type() == pbf_wire_type::length_delimited) {
                r.string_bytes = m.get_view().size();  // producer_name: the last one wins
            } else {
                m.skip();
            }
        }
        return r.graphs == 1 || (err = "no graph", false);
    } catch (const protozero::exception& e) {
        err = std::string("protozero: ") + e.what();
        return false;
    }
}

}  // namespace

const competitor protozero_competitor = {"protozero", open, protozero_walk<walker>, protozero_open_walk<walker>};

}  // namespace bench
