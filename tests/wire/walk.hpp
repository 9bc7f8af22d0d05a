// A schema-driven walker for wire tests: decodes a message completely
// (nested messages, merged occurrences, repeated elements) into a transcript
// string, or stops at the first error. Used by the truncation, alignment and
// merge tests, which compare transcripts and errors.
//
// Schema (at every level): 10 and 11 are message fields read occurrence by
// occurrence with child(); 12 is a singular message field read merged with
// merged_child(); 20, 21 and 22 are repeated int64 (varint), fixed32 and
// fixed64 fields read with repeated<>; everything else is printed raw.
#ifndef ONNXVIEW_TESTS_WIRE_WALK_HPP
#define ONNXVIEW_TESTS_WIRE_WALK_HPP

#include <string>

#include "onnxview/wire_repeated.hpp"

namespace onnxview {
namespace testing {

inline error walk(const wire::message& m, std::string& out) {
    using namespace onnxview::wire;
    out += '{';
    auto c = m.fields();
    field f;
    while (c.next(f)) {
        out += std::to_string(f.number) + ':' + std::to_string(static_cast<int>(f.type)) + '=';
        if ((f.number == 10 || f.number == 11) && f.type == wire_type::length_delimited) {
            auto child = m.child(f);
            if (!child.ok()) return child.err();
            const error e = walk(*child, out);
            if (e) return e;
        } else if (f.number >= 20 && f.number <= 22) {
            out += "r";  // decoded below, as a whole
        } else if (f.type == wire_type::length_delimited || f.type == wire_type::start_group) {
            out += '"' + std::string(f.bytes()) + '"';
        } else {
            out += std::to_string(f.raw);
        }
        out += ';';
    }
    if (c.err()) return c.err();

    auto merged = m.merged_child(12);
    if (!merged.ok()) return merged.err();
    out += "12*=";
    if (merged->empty()) {
        out += "{}";  // absent (or present and empty): nothing to walk, and no end to the recursion
    } else if (const error e = walk(*merged, out)) {
        return e;
    }

    repeated<elem_int64> r20(m, 20);
    out += ";20*=";
    for (std::int64_t v : r20) out += std::to_string(v) + ',';
    if (r20.err()) return r20.err();
    repeated<elem_fixed32> r21(m, 21);
    out += ";21*=";
    for (std::uint32_t v : r21) out += std::to_string(v) + ',';
    if (r21.err()) return r21.err();
    repeated<elem_fixed64> r22(m, 22);
    out += ";22*=";
    for (std::uint64_t v : r22) out += std::to_string(v) + ',';
    if (r22.err()) return r22.err();
    // count() must agree with the iteration.
    auto n20 = r20.count();
    auto n21 = r21.count();
    auto n22 = r22.count();
    if (!n20.ok()) return n20.err();
    if (!n21.ok()) return n21.err();
    if (!n22.ok()) return n22.err();
    out += ";n=" + std::to_string(*n20) + ',' + std::to_string(*n21) + ',' + std::to_string(*n22);
    out += '}';
    return error();
}

inline error walk(const void* data, std::size_t size, std::string& out, std::uint32_t max_depth = 0) {
    return walk(wire::message::root(data, size, max_depth), out);
}

}  // namespace testing
}  // namespace onnxview

#endif  // ONNXVIEW_TESTS_WIRE_WALK_HPP
