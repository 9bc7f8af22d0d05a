// onnxview/external_source.hpp - connects the io layer's external-data
// resolver to the model layer's tensor_data (which opens no files itself).
//
//   auto r = onnxview::external_data_resolver::create(opts);   // opts.model_path = ...
//   onnxview::external_payload_source src = onnxview::external_source(*r);
//   auto d = onnxview::tensor_data::make(tensor, src);          // fetches through *r
//   char why[512];
//   if (!d) puts(onnxview::describe_external_error(d.err(), tensor, why, sizeof why));
//
// The source keeps a pointer to the resolver: the resolver must outlive the
// source and every tensor_data made with it (the bytes belong to it). It is
// not thread-safe, like the resolver. Header-only, so it adds no source file
// to either layer; allocation and checks are the resolver's (see
// onnxview/external_data.hpp).
#ifndef ONNXVIEW_EXTERNAL_SOURCE_HPP
#define ONNXVIEW_EXTERNAL_SOURCE_HPP

#include "onnxview/external_data.hpp"
#include "onnxview/tensor_data.hpp"

namespace onnxview {

// Most external_data entries one tensor may carry (ONNX writes at most five:
// location, offset, length, checksum, basepath). More -> external_bad_entry.
constexpr std::size_t max_external_entries = 16;

namespace detail {
inline result<std::string_view> fetch_through_resolver(void* user, const tensor_view& t,
                                                       std::uint64_t expected_bytes) noexcept {
    auto* resolver = static_cast<external_data_resolver*>(user);
    external_entry entries[max_external_entries];
    std::size_t count = 0;
    for (const string_entry_view& kv : t.external_data()) {
        if (!kv.ok()) return kv.err();
        if (count == max_external_entries) {
            const wire::message& m = t.wire_message();
            return error(errc::external_bad_entry, m.offset_of(m.begin()));
        }
        entries[count++] = external_entry{kv.key(), kv.value()};
    }
    auto span = resolver->resolve(entries, count, expected_bytes);
    // A file supplied on demand (a remote model's) fetches the tensor's bytes.
    const error fetched = span && span->size != 0 ? span->file->ensure(span->offset, span->size) : error();
    if (!span || !fetched.ok()) {
        // The resolver knows strings, not bytes: its errors point at the tensor.
        const error e = span ? fetched : span.err();
        const wire::message& m = t.wire_message();
        return error(e.code, m.offset_of(m.begin()), e.sys_errno);
    }
    return span->bytes();
}
}  // namespace detail

// describe_external_error (onnxview/external_data.hpp) for an error that
// tensor_data::make or sparse_data::make returned for the EXTERNAL tensor `t`:
// names t and its `location` entry (the last one, as the resolver refuses
// duplicates).
inline const char* describe_external_error(error e, const tensor_view& t, char* out,
                                           std::size_t out_size) noexcept {
    std::string_view location;
    for (const string_entry_view& kv : t.external_data())
        if (kv.key() == "location") location = kv.value();
    return describe_external_error(e, t.name(), location, out, out_size);
}

// A payload source that resolves each EXTERNAL tensor through `resolver`.
inline external_payload_source external_source(external_data_resolver& resolver) noexcept {
    return external_payload_source{&resolver, &detail::fetch_through_resolver};
}

}  // namespace onnxview

#endif  // ONNXVIEW_EXTERNAL_SOURCE_HPP
