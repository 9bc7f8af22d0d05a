// The C API's handles: what a caller's onnxview_graph, onnxview_node, ...
// hold, and the conversions between them and the C++ views. Internal to
// src/capi/ and the optional libraries' C functions (src/profile/capi.cpp,
// src/compare/capi.cpp).
#ifndef ONNXVIEW_CAPI_HANDLE_HPP
#define ONNXVIEW_CAPI_HANDLE_HPP

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "onnxview.h"
#include "onnxview/sink.hpp"
#include "onnxview/model_file.hpp"

struct onnxview_model {
    onnxview::model_file file;
    // As opened: model_path and external_base_dir point into this block,
    // external_files to `external` (the checker opens external files too).
    onnxview::options opts;
    onnxview::file_callbacks external;
    std::size_t block_size;  // of the allocation holding this object and its strings
};

namespace onnxview {
namespace capi {

// A handle is its message and, for an element of a repeated field, the
// parent message, the field number and the element's index, which make
// next() O(1) amortized. number 0: not an element.
struct handle_body {
    wire::message msg;
    wire::message parent;
    const onnxview_model* owner;
    std::uint32_t number;
    std::uint32_t index;
};
static_assert(std::is_trivially_copyable<handle_body>::value, "handles are copied as bytes");
static_assert(sizeof(handle_body) <= sizeof(std::uint64_t) * ONNXVIEW_HANDLE_WORDS, "a handle fits the C struct");
static_assert(alignof(handle_body) <= alignof(std::uint64_t), "the C struct aligns a handle");

template <class Handle>
handle_body body_of(const Handle* h) noexcept {
    handle_body b;
    std::memcpy(&b, h->opaque_, sizeof b);
    return b;
}

template <class Handle>
void store(const handle_body& b, Handle* out) noexcept {
    std::memset(out->opaque_, 0, sizeof out->opaque_);
    std::memcpy(out->opaque_, &b, sizeof b);
}

// The view a handle stands for (indexed again: O(its own fields)).
template <class View, class Handle>
View view_of(const Handle* h) noexcept {
    return View(result<wire::message>(body_of(h).msg));
}

inline onnxview_error to_c(error e) noexcept {
    onnxview_error c;
    c.code = static_cast<std::int32_t>(e.code);
    c.sys_errno = e.sys_errno;
    c.offset = e.offset;
    return c;
}
inline onnxview_error ok() noexcept { return to_c(error()); }
inline onnxview_error fail(errc code, std::uint64_t offset = 0) noexcept { return to_c(error(code, offset)); }

// Text handed to the caller (onnxview_text_free frees it): a malloc'd
// buffer grown as a write_sink fills it, NUL-terminated by give().
struct text_buffer {
    char* data = nullptr;
    std::size_t size = 0, capacity = 0;

    text_buffer() noexcept = default;
    text_buffer(const text_buffer&) = delete;
    text_buffer& operator=(const text_buffer&) = delete;
    ~text_buffer() { std::free(data); }

    static error append(void* user, const char* bytes, std::size_t n) noexcept {
        auto* t = static_cast<text_buffer*>(user);
        if (t->capacity - t->size <= n) {  // room for the NUL too
            std::size_t grown = t->capacity < 4096 ? 4096 : t->capacity * 2;
            while (grown - t->size <= n) grown *= 2;
            char* moved = static_cast<char*>(std::realloc(t->data, grown));
            if (moved == nullptr) return errc::out_of_memory;
            t->data = moved;
            t->capacity = grown;
        }
        if (n != 0) std::memcpy(t->data + t->size, bytes, n);
        t->size += n;
        return error();
    }
    write_sink sink() noexcept { return write_sink{this, &append, nullptr}; }
    // The text to the caller: *out owns it from here.
    onnxview_error give(char** out, std::size_t* out_size) noexcept {
        if (error e = append(this, "", 0)) return to_c(e);  // room for the NUL, even with nothing written
        data[size] = '\0';
        *out = data;
        if (out_size != nullptr) *out_size = size;
        data = nullptr;
        return ok();
    }
};

inline onnxview_string to_c(std::string_view s) noexcept {
    onnxview_string c;
    c.data = s.data();
    c.size = s.size();
    return c;
}

// Stores the handle of view `v` (made from a singular field, or the model's
// graph) into out, or returns its error.
template <class View, class Handle>
onnxview_error store_view(const View& v, const onnxview_model* owner, Handle* out) noexcept {
    if (out == nullptr) return fail(errc::invalid_argument);
    if (!v.ok()) return to_c(v.err());
    handle_body b{};
    b.msg = v.wire_message();
    b.owner = owner;
    store(b, out);
    return ok();
}

// The element `index` of repeated message field `number` of `parent`, in
// wire order (linear in the parent's fields before it). Errors: not_found,
// and the element's own framing errors.
template <class View>
result<handle_body> element(const wire::message& parent, const onnxview_model* owner, std::uint32_t number,
                            std::size_t index) noexcept {
    wire::message::cursor c(parent);
    wire::field f;
    std::size_t seen = 0;
    while (c.next(number, f)) {
        if (f.type != wire::wire_type::length_delimited || seen++ != index) continue;
        const result<wire::message> m = c.child(f);
        const View v(m);
        if (!v.ok()) return v.err();
        handle_body b{};
        b.msg = m.value();
        b.parent = parent;
        b.owner = owner;
        b.number = number;
        b.index = static_cast<std::uint32_t>(index);
        return b;
    }
    if (!c.err().ok()) return c.err();
    return error(errc::not_found, parent.offset_of(parent.begin()));
}

template <class View, class ParentHandle, class Handle>
onnxview_error store_element(const ParentHandle* p, std::uint32_t number, std::size_t index, Handle* out) noexcept {
    if (p == nullptr || out == nullptr) return fail(errc::invalid_argument);
    const handle_body pb = body_of(p);
    const result<handle_body> b = element<View>(pb.msg, pb.owner, number, index);
    if (!b.ok()) return to_c(b.err());
    store(b.value(), out);
    return ok();
}

// The element after h's in its repeated field: from h's end when the parent
// is one plain region, else counted again from the parent's start (a merged
// parent interleaves the occurrences of its fields).
template <class View, class Handle>
onnxview_error store_next(const Handle* h, Handle* out) noexcept {
    if (h == nullptr || out == nullptr) return fail(errc::invalid_argument);
    const handle_body b = body_of(h);
    if (b.number == 0) return fail(errc::not_found, b.msg.offset_of(b.msg.begin()));
    if (b.parent.merged()) {
        const result<handle_body> n = element<View>(b.parent, b.owner, b.number, b.index + std::size_t(1));
        if (!n.ok()) return to_c(n.err());
        store(n.value(), out);
        return ok();
    }
    const wire::message rest(b.parent.base(), b.msg.end(), b.parent.end(), b.parent.depth(), b.parent.max_depth());
    result<handle_body> n = element<View>(rest, b.owner, b.number, 0);
    if (!n.ok()) return to_c(n.err());
    n.value().parent = b.parent;
    n.value().index = b.index + 1;
    store(n.value(), out);
    return ok();
}

// Copies a repeated scalar field into out (see onnxview_attribute_ints).
template <class T, class Repeated>
onnxview_error copy_scalars(const Repeated& r, T* out, std::size_t capacity, std::size_t* count) noexcept {
    std::size_t n = 0;
    for (auto x : r) {
        static_cast<void>(x);
        ++n;
    }
    if (!r.err().ok()) return to_c(r.err());
    if (count != nullptr) *count = n;
    if (n == 0 || (out == nullptr && capacity == 0)) return ok();  // the count asked alone
    if (out == nullptr || capacity < n) return fail(errc::buffer_too_small);
    std::size_t i = 0;
    for (auto x : r) out[i++] = static_cast<T>(x);
    return ok();
}

// String i of a repeated string field.
inline onnxview_error string_at(const string_range& r, std::size_t i, onnxview_string* out) noexcept {
    if (out == nullptr) return fail(errc::invalid_argument);
    if (i >= r.size()) return fail(errc::not_found);
    *out = to_c(r.at(i));
    return ok();
}

// Opset i of an opset_import field (model or function).
inline onnxview_error opset_at(const message_range<opset_id_view>& r, std::size_t i, onnxview_string* domain,
                               int64_t* version) noexcept {
    if (i >= r.size()) return fail(errc::not_found);
    const opset_id_view o = r.at(i);
    if (!o.ok()) return to_c(o.err());
    if (domain != nullptr) *domain = to_c(o.domain());
    if (version != nullptr) *version = o.version();
    return ok();
}

// Entry i of a StringStringEntryProto field (metadata, external data).
inline onnxview_error entry_at(const message_range<string_entry_view>& r, std::size_t i, onnxview_string* key,
                               onnxview_string* value) noexcept {
    if (i >= r.size()) return fail(errc::not_found);
    const string_entry_view e = r.at(i);
    if (!e.ok()) return to_c(e.err());
    if (key != nullptr) *key = to_c(e.key());
    if (value != nullptr) *value = to_c(e.value());
    return ok();
}

// The options a C caller passed, as the C++ API takes them. Null: defaults.
error from_c(const onnxview_options* in, options& out) noexcept;

}  // namespace capi
}  // namespace onnxview

#endif  // ONNXVIEW_CAPI_HANDLE_HPP
