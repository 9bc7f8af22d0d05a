// fuzz/fuzz_differential.cpp - onnxview against libprotobuf, the reference.
//
// libprotobuf here is Debian's (3.21) with the descriptors of code that
// protoc generates at build time from Debian's /usr/include/onnx/onnx.proto
// (ONNX 1.12), so onnxview is restricted to the same schema
// (options::release = 1.12): fields newer than 1.12 are unknown fields
// to both. The message is a DynamicMessage, parsed by reflection as
// `protoc --decode` parses it - the behaviour `onnxview dump` promises. The
// generated parser differs in one place: an out-of-range value of a closed
// enum is kept as an unknown varint with all its 64 bits, where reflection
// keeps it read as an int32 and sign-extended (found by this target). Both
// parsers run; they must agree on what they accept.
//
//   * libprotobuf parses the input as onnx.ModelProto => onnxview accepts it
//     (verify() with the 1.12 schema; merge_too_deep is its one documented
//     refusal of what libprotobuf reads) and its text format equals
//     TextFormat::PrintToString.
//   * libprotobuf rejects it => onnxview rejects it too (verify() with the
//     1.12 schema and with the newest).
//
// One deliberate difference is filtered out (see needs_long_length below):
// onnxview reads lengths of 6 to 10 varint bytes and lengths of 2 GiB and
// more, which libprotobuf's ReadSize refuses (it reads at most 5 bytes and
// values up to INT_MAX - 16) so that messages over 2 GiB - common for ONNX
// models with inline weights - can be read. Inputs where libprotobuf would
// meet such a length are not compared in the "libprotobuf rejects" direction.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include "fuzz_check.hpp"
#include "onnx.pb.h"
#include "onnxview/text_format.hpp"
#include "onnxview/verify.hpp"

namespace {

using namespace onnxview;
using wire::wire_type;

constexpr std::uint32_t debian_release = schema::release_debian_bookworm;

// True when libprotobuf, parsing [begin, end) as a message of type desc
// (null: unknown fields / group content), would read a length-delimited size
// that its ReadSize refuses but onnxview's decoder accepts: encoded in more
// than 5 bytes, or larger than INT_MAX - 16. Walks the levels libprotobuf
// parses: known message fields of the 1.12 schema and group contents.
bool needs_long_length(const char* base, const char* begin, const char* end,
                       const schema::message_desc* desc, unsigned depth) {
    if (depth > 110) return false;  // past libprotobuf's limit: rejected by both anyway
    wire::reader r(base, begin, end, 0, 1000);
    while (!r.at_end()) {
        wire::field f;
        if (r.next(f)) return false;  // framing error: both reject, nothing to excuse
        if (f.type == wire_type::start_group) {
            if (needs_long_length(base, f.payload, f.payload + f.raw, nullptr, depth + 1)) return true;
            continue;
        }
        if (f.type != wire_type::length_delimited) continue;
        const char* len_at = f.tag;
        std::uint32_t number;
        wire_type t;
        if (wire::decode_tag(len_at, end, number, t) != errc::ok) return false;
        const std::ptrdiff_t len_bytes = f.payload - len_at;
        if (len_bytes > 5 || f.raw > static_cast<std::uint64_t>(INT_MAX - 16)) return true;
        const schema::field_desc* fd = desc ? desc->find(f.number, debian_release) : nullptr;
        if (fd && fd->type == schema::type::message &&
            needs_long_length(base, f.payload, f.payload + f.raw, fd->message, depth + 1))
            return true;
    }
    return false;
}

void sink_write(void* user, const char* data, std::size_t n) {
    static_cast<std::string*>(user)->append(data, n);
}

void print_mismatch(const std::string& ours, const std::string& theirs) {
    std::size_t i = 0;
    while (i < ours.size() && i < theirs.size() && ours[i] == theirs[i]) ++i;
    const std::size_t from = i > 80 ? i - 80 : 0;
    std::fprintf(stderr, "text differs at byte %zu\n--- onnxview:\n%s\n--- libprotobuf:\n%s\n", i,
                 ours.substr(from, 200).c_str(), theirs.substr(from, 200).c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // Generated proto2 code logs (without failing) on invalid UTF-8 in debug
    // builds; such noise would drown the fuzzer's output.
    google::protobuf::SetLogHandler(nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > static_cast<std::size_t>(INT_MAX)) return 0;
    static google::protobuf::DynamicMessageFactory factory;
    static const google::protobuf::Message* const prototype =
        factory.GetPrototype(onnx::ModelProto::descriptor());
    const std::unique_ptr<google::protobuf::Message> model(prototype->New());
    const bool theirs_ok = model->ParseFromArray(data, static_cast<int>(size));
    // The generated parser too: it is built with coverage instrumentation, so
    // its branches guide the fuzzer towards inputs libprotobuf reads deeply
    // (the reflection parser is in the uninstrumented shared library); and
    // the two must agree on what they accept.
    onnx::ModelProto generated;
    FUZZ_CHECK(generated.ParseFromArray(data, static_cast<int>(size)) == theirs_ok);

    options opts;
    opts.release = debian_release;
    const error ours = verify(data, size, schema::msg_ModelProto, opts);

    if (theirs_ok) {
        // Documented limit: singular messages merged from several occurrences
        // nested more than 8 levels deep are refused, by verify() and the
        // printers alike.
        if (ours.code == errc::merge_too_deep) return 0;
        if (!ours.ok())
            std::fprintf(stderr, "libprotobuf accepts; onnxview: %s at %llu\n", errc_name(ours.code),
                         static_cast<unsigned long long>(ours.offset));
        FUZZ_CHECK(ours.ok());
        std::string text;
        const error e = print_text(data, size, schema::msg_ModelProto, output_sink{&sink_write, &text}, opts);
        FUZZ_CHECK(e.ok());
        std::string reference;
        FUZZ_CHECK(google::protobuf::TextFormat::PrintToString(*model, &reference));
        if (text != reference) print_mismatch(text, reference);
        FUZZ_CHECK(text == reference);
        return 0;
    }

    const char* base = reinterpret_cast<const char*>(data);
    if (needs_long_length(base, base, base + size, &schema::msg_ModelProto, 0)) return 0;
    if (ours.ok()) std::fprintf(stderr, "libprotobuf rejects; onnxview accepts\n");
    FUZZ_CHECK(!ours.ok());
    FUZZ_CHECK(!verify(data, size).ok());
    return 0;
}
