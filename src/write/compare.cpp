// same_tensors (onnxview/write.hpp): two models' tensors compared in walk
// order, element bit patterns included.
#include <vector>

#include "../io/heap.hpp"
#include "onnxview/model.hpp"
#include "onnxview/tensor_data.hpp"
#include "onnxview/write.hpp"
#include "tensor_walk.hpp"

namespace onnxview {

namespace {

using tensor_list = std::vector<wire::message, detail::heap_allocator<wire::message>>;

error collect_tensors(const wire::message& m, const schema::message_desc& d, tensor_list& out) noexcept {
    tensor_walk::occurrences occ;
    if (tensor_walk::counts_occurrences(d))
        if (error e = occ.collect(wire::reader(m.base(), m.begin(), m.end(), m.depth(), m.max_depth()))) return e;
    wire::reader r(m.base(), m.begin(), m.end(), m.depth(), m.max_depth());
    wire::field f;
    while (!r.at_end()) {
        if (error e = r.next(f)) return e;
        const schema::message_desc* child = tensor_walk::followed(d, f, occ);
        if (child == nullptr) continue;
        const result<wire::message> c = m.child(f);
        if (!c) return c.err();
        if (child == &schema::msg_TensorProto) {
            out.push_back(*c);
        } else if (error e = collect_tensors(*c, *child, out)) {
            return e;
        }
    }
    return error();
}

// Same payload: both fail to validate the same way, or both hold the same
// elements (strings for STRING tensors, bit patterns for the rest).
bool same_payload(const tensor_view& a, const external_payload_source* sa, const tensor_view& b,
                  const external_payload_source* sb, error& failure) noexcept {
    const result<tensor_data> da = tensor_data::make(a, sa);
    const result<tensor_data> db = tensor_data::make(b, sb);
    if (!da || !db) {
        if (!db && da) failure = db.err();
        return !da && !db && da.err().code == db.err().code;
    }
    if (da->size() != db->size() || da->type() != db->type()) return false;
    if (da->info().kind == element_kind::string) {
        const auto xs = da->elements<std::string_view>();
        auto x = xs.begin();
        for (std::string_view s : db->elements<std::string_view>()) {
            if (x == xs.end() || *x != s) return false;
            ++x;
        }
        return x == xs.end();
    }
    element_cursor x(*da), y(*db);
    std::uint64_t xl, xh, yl, yh;
    for (std::uint64_t i = 0; i < da->size(); ++i) {
        const bool gx = x.next(xl, xh), gy = y.next(yl, yh);
        if (gx != gy || xl != yl || xh != yh) return false;
        if (!gx) break;
    }
    return true;
}

}  // namespace

error same_tensors(std::string_view a, const external_payload_source* source_a, std::string_view b,
                   const external_payload_source* source_b, const options& opts, std::uint64_t* compared) noexcept {
    const detail::heap memory(opts.memory);
    tensor_list ta{detail::heap_allocator<wire::message>(memory)}, tb{detail::heap_allocator<wire::message>(memory)};
    const wire::message ra = wire::message::root(a.data(), a.size(), opts.max_message_depth);
    const wire::message rb = wire::message::root(b.data(), b.size(), opts.max_message_depth);
    if (error e = collect_tensors(ra, schema::msg_ModelProto, ta)) return e;
    if (error e = collect_tensors(rb, schema::msg_ModelProto, tb)) return e;
    if (compared != nullptr) *compared = 0;
    for (std::size_t i = 0; i < ta.size() && i < tb.size(); ++i) {
        const tensor_view x{result<wire::message>(ta[i])}, y{result<wire::message>(tb[i])};
        const std::uint64_t at = tb[i].offset_of(tb[i].begin());
        error failure;
        if (!x.ok() || !y.ok() || x.name() != y.name() || x.data_type() != y.data_type() || !tensor_walk::same_dims(x, y) ||
            !same_payload(x, source_a, y, source_b, failure))
            return failure ? failure : error(errc::tensor_mismatch, at);
        if (compared != nullptr) ++*compared;
    }
    if (ta.size() != tb.size()) return error(errc::tensor_mismatch, b.size());
    return error();
}

}  // namespace onnxview
