// fuzz/fuzz_dump.cpp - the text and JSON printers and field_path_at().
//
// Contracts checked besides memory safety:
//   * verify() with the printers' release and depth decides: print_text()
//     and print_json() succeed exactly when it does, fail with its error, and
//     write nothing when they fail;
//   * printing twice gives the same bytes (no hidden state);
//   * field_path_at() never overruns its buffer and, for a too-small buffer,
//     writes a NUL-terminated prefix of the full path.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_check.hpp"
#include "onnxview/field_path.hpp"
#include "onnxview/json_format.hpp"
#include "onnxview/text_format.hpp"
#include "onnxview/verify.hpp"

namespace {

using namespace onnxview;

struct capture {
    std::string out;
    static void write(void* user, const char* data, std::size_t n) {
        FUZZ_CHECK(n == 0 || data != nullptr);
        static_cast<capture*>(user)->out.append(data, n);
    }
    output_sink sink() { return output_sink{&capture::write, this}; }
};

void print_both(const std::uint8_t* data, std::size_t size, const schema::message_desc& root,
                const options& opts) {
    const error valid = verify(data, size, root, opts);
    FUZZ_CHECK(valid.ok() || valid.offset <= size);

    capture text;
    const error t = print_text(data, size, root, text.sink(), opts);
    if (valid.ok()) {
        FUZZ_CHECK(t.ok());
    } else {
        FUZZ_CHECK(t == valid);
        FUZZ_CHECK(text.out.empty());
    }
    if (t.ok()) {
        capture again;
        FUZZ_CHECK(print_text(data, size, root, again.sink(), opts).ok());
        FUZZ_CHECK(again.out == text.out);
    }

    capture json;
    const error j = print_json(data, size, root, json.sink(), opts);
    if (valid.ok()) {
        FUZZ_CHECK(j.ok());
        FUZZ_CHECK(!json.out.empty());  // at least "{}"
    } else {
        FUZZ_CHECK(j == valid);
        FUZZ_CHECK(json.out.empty());
    }
}

void paths(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return;
    char full[4096];
    char small[8];
    // A handful of offsets spread over the input, and its last byte.
    for (std::size_t k = 0; k < 8; ++k) {
        const std::uint64_t off = k == 7 ? size : (size * k) / 7;
        const result<std::size_t> r =
            field_path_at(data, size, off, schema::msg_ModelProto, full, sizeof full);
        if (r.ok()) {
            FUZZ_CHECK(*r < sizeof full && std::strlen(full) == *r);
        } else {
            FUZZ_CHECK(r.err().code == errc::buffer_too_small);
        }
        std::memset(small, 'x', sizeof small);
        const result<std::size_t> s =
            field_path_at(data, size, off, schema::msg_ModelProto, small, sizeof small);
        FUZZ_CHECK(std::memchr(small, '\0', sizeof small) != nullptr);
        if (r.ok() && *r < sizeof small) {
            FUZZ_CHECK(s.ok() && *s == *r && std::strcmp(small, full) == 0);
        } else if (r.ok()) {
            FUZZ_CHECK(!s.ok() && s.err().code == errc::buffer_too_small && s.err().offset == *r);
            FUZZ_CHECK(std::strncmp(small, full, sizeof small - 1) == 0);
        }
    }
    FUZZ_CHECK(!field_path_at(data, size, size + 1, schema::msg_ModelProto, full, sizeof full).ok());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    options newest;
    print_both(data, size, schema::msg_ModelProto, newest);

    // Options from the input's size (not its bytes, which stay the model):
    // the 1.12 schema, eliding and a small depth limit.
    options restricted;
    restricted.release = schema::release_debian_bookworm;
    restricted.max_printed_bytes = size % 3 == 0 ? 0 : 1 + size % 17;
    restricted.max_message_depth = size % 5 == 0 ? 3 + static_cast<std::uint32_t>(size % 7) : 0;
    print_both(data, size, schema::msg_ModelProto, restricted);

    print_both(data, size, schema::msg_TensorProto, newest);
    paths(data, size);
    return 0;
}
