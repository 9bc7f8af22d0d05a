// The onnxview competitor: cursors (onnxview/cursor.hpp), one forward pass
// that decodes each field once, tensor payloads included (the views
// competitor reads them through tensor_data).
//
// Singular fields are read as a loader reads them: kept, last one wins, and
// counted once the message is done.
#include "onnxview/cursor.hpp"

#include <sys/mman.h>

#include "common.hpp"
#include "onnxview/file.hpp"

namespace bench {
namespace {

using namespace onnxview;
using wire::elem_float;
using wire::elem_int64;

struct walker {
    walk_result& r;
    bool payloads;
    error err;

    void str(std::string_view s) noexcept { r.string_bytes += s.size(); }
    void num(std::uint64_t v) noexcept { r.int_sum += v; }
    // Keeps the first error any cursor meets. The walk goes on (a cursor never
    // leaves its message's bytes) and walk() checks once, at the end, where
    // protozero's walk throws: no test of an error after each nested message.
    template <class View>
    void finish(const cursor<View>& c) noexcept {
        if (!c.ok() && err.ok()) err = c.err();
    }
    void dims(const occurrence<elem_int64>& o) noexcept {
        for (std::int64_t d : o) {
            ++r.dims;
            num(static_cast<std::uint64_t>(d));
        }
    }

    // A tensor's name, data type and dims; with payloads, every element of
    // every data field, converted as ONNX stores it there. raw_data and
    // int32_data are converted by data_type, whose last occurrence counts and
    // may come after them: raw bytes are kept, and int32_data is read in a
    // second pass over the tensor once the message is done.
    void tensor(cursor<tensor_view> c) {
        ++r.tensors;
        using F = tensor_view::field;
        const cursor<tensor_view> start = c;
        std::string_view name, raw;
        std::int32_t dtype = 0;
        bool int32s = false;
        tensor_sum s;
        while (const std::uint32_t n = c.next()) {
            switch (n) {
                case F::dims: dims(c.elements<elem_int64>()); break;
                case F::data_type: dtype = c.as_int32(); break;
                case F::name: name = c.as_string(); break;
                default:
                    if (payloads) payload(c, raw, int32s, s);
                    break;
            }
        }
        str(name);
        num(static_cast<std::uint64_t>(dtype));
        if (!payloads) {
            finish(c);
            return;
        }
        if (!raw.empty()) s.add_raw(dtype, raw.data(), raw.size());
        if (int32s) {
            cursor<tensor_view> again = start;
            while (const std::uint32_t n = again.next()) {
                if (n == F::int32_data)
                    for (std::int32_t v : again.elements<wire::elem_int32>()) s.add_int32_field(dtype, v);
            }
            finish(again);
        }
        s.finish(r);
        finish(c);
    }

    // One occurrence of a data field. Packed chunks of float_data and
    // double_data are little-endian arrays: summed as blocks.
    void payload(cursor<tensor_view>& c, std::string_view& raw, bool& int32s, tensor_sum& s) {
        using F = tensor_view::field;
        const bool packed = c.type() == wire::wire_type::length_delimited;
        switch (c.number()) {
            case F::raw_data: raw = c.as_string(); break;
            case F::float_data:
                if (packed) s.add_raw(1, c.as_string().data(), c.as_string().size());
                else s.add(c.as_float());
                break;
            case F::double_data:
                if (packed) s.add_raw(11, c.as_string().data(), c.as_string().size());
                else s.add(c.as_double());
                break;
            case F::int64_data:
                for (std::int64_t v : c.elements<elem_int64>()) s.add(double(v));
                break;
            case F::uint64_data:
                for (std::uint64_t v : c.elements<wire::elem_uint64>()) s.add(double(v));
                break;
            case F::int32_data: int32s = true; break;  // after data_type is known
            case F::string_data: str(c.as_string()); break;
            default: break;
        }
    }

    void sparse(cursor<sparse_tensor_view> c) {
        using F = sparse_tensor_view::field;
        while (const std::uint32_t n = c.next()) {
            switch (n) {
                case F::values:
                case F::indices:
                    tensor(c.message<tensor_view>());
                    break;
                case F::dims: dims(c.elements<elem_int64>()); break;
                default: break;
            }
        }
        finish(c);
    }

    void shape(cursor<tensor_shape_view> c) {
        while (c.next()) {  // dim: the only field of TensorShapeProto
            ++r.dims;
            cursor<dimension_view> d = c.message<dimension_view>();
            // value is a oneof: the last member wins.
            std::uint64_t value = 0;
            std::string_view param;
            std::uint32_t member = 0;
            while (const std::uint32_t n = d.next()) {
                if (n == dimension_view::field::dim_value) value = d.as_uint64(), member = n;
                else if (n == dimension_view::field::dim_param) param = d.as_string(), member = n;
            }
            if (member == dimension_view::field::dim_value) num(value);
            else if (member == dimension_view::field::dim_param) str(param);
            finish(d);
        }
        finish(c);
    }

    // TypeProto.Tensor and TypeProto.SparseTensor: the same field numbers.
    template <class View>
    void tensor_type(cursor<View> c) {
        std::int32_t elem = 0;
        while (const std::uint32_t n = c.next()) {
            if (n == View::field::elem_type) elem = c.as_int32();
            else if (n == View::field::shape) shape(c.template message<tensor_shape_view>());
        }
        num(static_cast<std::uint64_t>(elem));
        finish(c);
    }

    // TypeProto.Sequence and TypeProto.Optional: field 1 is the element type.
    template <class View>
    void elem_holder(cursor<View> c) {
        while (c.next())
            type(c.template message<type_view>());
        finish(c);
    }

    void type(cursor<type_view> c) {
        using F = type_view::field;
        std::string_view denotation;
        while (const std::uint32_t n = c.next()) {
            switch (n) {
                case F::tensor_type: tensor_type(c.message<tensor_type_view>()); break;
                case F::sparse_tensor_type: tensor_type(c.message<sparse_tensor_type_view>()); break;
                case F::sequence_type: elem_holder(c.message<sequence_type_view>()); break;
                case F::optional_type: elem_holder(c.message<optional_type_view>()); break;
                case F::map_type: {
                    cursor<map_type_view> m = c.message<map_type_view>();
                    std::int32_t key = 0;
                    while (const std::uint32_t k = m.next()) {
                        if (k == map_type_view::field::key_type) key = m.as_int32();
                        else type(m.message<type_view>());
                    }
                    num(static_cast<std::uint64_t>(key));
                    finish(m);
                    break;
                }
                case F::opaque_type: {
                    cursor<opaque_type_view> o = c.message<opaque_type_view>();
                    std::string_view domain, name;
                    while (const std::uint32_t k = o.next()) {
                        if (k == opaque_type_view::field::domain) domain = o.as_string();
                        else name = o.as_string();
                    }
                    str(domain);
                    str(name);
                    finish(o);
                    break;
                }
                case F::denotation: denotation = c.as_string(); break;
                default: break;
            }
        }
        str(denotation);
        finish(c);
    }

    void value_info(cursor<value_info_view> c) {
        ++r.value_infos;
        std::string_view name;
        while (const std::uint32_t n = c.next()) {
            if (n == value_info_view::field::name) name = c.as_string();
            else if (n == value_info_view::field::type) type(c.message<type_view>());
        }
        str(name);
        finish(c);
    }

    void attribute(cursor<attribute_view> c) {
        ++r.attributes;
        using F = attribute_view::field;
        std::string_view name, ref_attr_name, s;
        std::int32_t type = 0;
        float f = 0;
        std::int64_t i = 0;
        while (const std::uint32_t n = c.next()) {
            switch (n) {
                case F::name: name = c.as_string(); break;
                case F::ref_attr_name: ref_attr_name = c.as_string(); break;
                case F::s: s = c.as_string(); break;
                case F::type: type = c.as_int32(); break;
                case F::f: f = c.as_float(); break;
                case F::i: i = c.as_int64(); break;
                case F::floats:
                    for (float v : c.elements<elem_float>()) num(float_bits(v));
                    break;
                case F::ints:
                    for (std::int64_t v : c.elements<elem_int64>()) num(static_cast<std::uint64_t>(v));
                    break;
                case F::strings: str(c.as_string()); break;
                case F::t:
                case F::tensors: tensor(c.message<tensor_view>()); break;
                case F::g:
                case F::graphs: graph(c.message<graph_view>()); break;
                case F::tp:
                case F::type_protos: this->type(c.message<type_view>()); break;
                case F::sparse_tensor:
                case F::sparse_tensors: sparse(c.message<sparse_tensor_view>()); break;
                default: break;
            }
        }
        str(name);
        str(ref_attr_name);
        str(s);
        num(static_cast<std::uint64_t>(type));
        num(float_bits(f));
        num(static_cast<std::uint64_t>(i));
        finish(c);
    }

    void node(cursor<node_view> c) {
        ++r.nodes;
        using F = node_view::field;
        std::string_view name, op_type, domain;
        while (const std::uint32_t n = c.next()) {
            switch (n) {
                case F::input:
                case F::output: str(c.as_string()); break;
                case F::name: name = c.as_string(); break;
                case F::op_type: op_type = c.as_string(); break;
                case F::domain: domain = c.as_string(); break;
                case F::attribute:
                    attribute(c.message<attribute_view>());
                    break;
                default: break;
            }
        }
        str(name);
        str(op_type);
        str(domain);
        finish(c);
    }

    void graph(cursor<graph_view> c) {
        ++r.graphs;
        using F = graph_view::field;
        std::string_view name;
        while (const std::uint32_t n = c.next()) {
            switch (n) {
                case F::node: node(c.message<node_view>()); break;
                case F::name: name = c.as_string(); break;
                case F::initializer: tensor(c.message<tensor_view>()); break;
                case F::sparse_initializer: sparse(c.message<sparse_tensor_view>()); break;
                case F::input:
                case F::output:
                case F::value_info: value_info(c.message<value_info_view>()); break;
                default: break;
            }
        }
        str(name);
        finish(c);
    }

    void opset(cursor<opset_id_view> c) {
        std::string_view domain;
        std::int64_t version = 0;
        while (const std::uint32_t n = c.next()) {
            if (n == opset_id_view::field::domain) domain = c.as_string();
            else version = c.as_int64();
        }
        str(domain);
        num(static_cast<std::uint64_t>(version));
        finish(c);
    }

    void function(cursor<function_view> c) {
        ++r.functions;
        using F = function_view::field;
        std::string_view name, domain;
        while (const std::uint32_t n = c.next()) {
            switch (n) {
                case F::name: name = c.as_string(); break;
                case F::domain: domain = c.as_string(); break;
                case F::input:
                case F::output:
                case F::attribute: str(c.as_string()); break;
                case F::node: node(c.message<node_view>()); break;
                case F::opset_import: opset(c.message<opset_id_view>()); break;
                default: break;
            }
        }
        str(name);
        str(domain);
        finish(c);
    }

    void model(cursor<model_view> c) {
        using F = model_view::field;
        std::int64_t ir_version = 0;
        std::string_view producer;
        while (const std::uint32_t n = c.next()) {
            switch (n) {
                case F::ir_version: ir_version = c.as_int64(); break;
                case F::producer_name: producer = c.as_string(); break;
                case F::opset_import: opset(c.message<opset_id_view>()); break;
                case F::graph: graph(c.message<graph_view>()); break;
                case F::training_info: {
                    cursor<training_info_view> t = c.message<training_info_view>();
                    while (const std::uint32_t k = t.next()) {
                        if (k == training_info_view::field::initialization ||
                            k == training_info_view::field::algorithm)
                            graph(t.message<graph_view>());
                    }
                    finish(t);
                    break;
                }
                case F::functions: function(c.message<function_view>()); break;
                default: break;
            }
        }
        num(static_cast<std::uint64_t>(ir_version));
        str(producer);
        finish(c);
    }
};

bool walk(const char* data, std::size_t size, bool payloads, walk_result& r, std::string& err) {
    walker w{r, payloads, error()};
    w.model(model_cursor(data, size));
    if (!w.err.ok()) {
        err = std::string("cursor: ") + errc_name(w.err.code) + " at byte " + std::to_string(w.err.offset);
        return false;
    }
    at_peak();
    return true;
}

bool open_walk(const char* path, bool payloads, walk_result& r, std::string& err) {
    return open_onnxview_then_walk(path, payloads, walk, r, err);
}

}  // namespace

const competitor onnxview_competitor = {"onnxview", open_onnxview, walk, open_walk};

}  // namespace bench
