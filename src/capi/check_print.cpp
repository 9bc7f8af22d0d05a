// The C API: the checker and the printers (include/onnxview.h), over
// check_model, print_text and print_json.
#include <new>

#include "handle.hpp"
#ifndef ONNXVIEW_NO_CHECK
#include "onnxview/check.hpp"
#endif
#ifndef ONNXVIEW_NO_TEXT
#include "onnxview/json_format.hpp"
#include "onnxview/text_format.hpp"
#endif

using namespace onnxview;
using namespace onnxview::capi;

namespace {

// The options of a call that may pass none: then those the model was opened with.
error call_options(const onnxview_model* m, const onnxview_options* in, options& out) noexcept {
    if (in == nullptr) {
        out = m->opts;
        return error();
    }
    return from_c(in, out);
}

#ifndef ONNXVIEW_NO_CHECK
struct finding_relay {
    onnxview_finding_callback callback;
    void* user;
};

void relay_finding(void* user, const check_finding& f) {
    const finding_relay* r = static_cast<const finding_relay*>(user);
    onnxview_finding c;
    c.severity = f.severity == check_severity::error ? ONNXVIEW_ERROR : ONNXVIEW_WARNING;
    c.code = static_cast<int32_t>(f.code);
    c.code_name = finding_code_name(f.code);
    c.path = to_c(f.path);
    c.message = to_c(f.message);
    c.offset = f.offset;
    r->callback(r->user, &c);
}
#endif

#ifndef ONNXVIEW_NO_TEXT
using printer = error (*)(const void*, std::size_t, const schema::message_desc&, output_sink, const options&);

onnxview_error print_with(printer p, const onnxview_model* m, const onnxview_options* in, onnxview_write_fn write,
                          void* user) noexcept {
    if (m == nullptr || write == nullptr) return fail(errc::invalid_argument);
    options opts;
    if (const error e = call_options(m, in, opts)) return to_c(e);
    output_sink sink;
    sink.write = write;
    sink.user = user;
    const std::string_view b = m->file.bytes();
    return to_c(p(b.data(), b.size(), schema::msg_ModelProto, sink, opts));
}
#endif

}  // namespace

extern "C" {

onnxview_error onnxview_check(onnxview_model* m, const onnxview_options* in, onnxview_finding_callback callback,
                              void* user, onnxview_check_result* out) {
    if (m == nullptr || out == nullptr) return fail(errc::invalid_argument);
#ifdef ONNXVIEW_NO_CHECK
    static_cast<void>(in), static_cast<void>(callback), static_cast<void>(user);
    return fail(errc::invalid_argument);
#else
    options opts;
    if (const error e = call_options(m, in, opts)) return to_c(e);
    finding_relay relay{callback, user};
    check_result r;
#if ONNXVIEW_HAS_EXCEPTIONS
    try {
#endif
        r = check_model(m->file.bytes(), opts, callback ? relay_finding : nullptr, &relay);
#if ONNXVIEW_HAS_EXCEPTIONS
    } catch (const std::bad_alloc&) {  // no exception crosses into C
        return fail(errc::out_of_memory);
    }
#endif
    out->errors = r.errors;
    out->warnings = r.warnings;
    out->truncated = r.truncated ? 1 : 0;
    return ok();
#endif
}

onnxview_error onnxview_print_text(const onnxview_model* m, const onnxview_options* in, onnxview_write_fn write,
                                   void* user) {
#ifdef ONNXVIEW_NO_TEXT
    static_cast<void>(m), static_cast<void>(in), static_cast<void>(write), static_cast<void>(user);
    return fail(errc::invalid_argument);
#else
    return print_with(print_text, m, in, write, user);
#endif
}

onnxview_error onnxview_print_json(const onnxview_model* m, const onnxview_options* in, onnxview_write_fn write,
                                   void* user) {
#ifdef ONNXVIEW_NO_TEXT
    static_cast<void>(m), static_cast<void>(in), static_cast<void>(write), static_cast<void>(user);
    return fail(errc::invalid_argument);
#else
    return print_with(print_json, m, in, write, user);
#endif
}

}  // extern "C"
