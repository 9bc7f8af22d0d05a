// A tensor's payload in raw_data layout, in chunks (for_each_raw_chunk,
// onnxview/tensor_data.hpp).
#include "onnxview/tensor_data.hpp"

namespace onnxview {

namespace {

void store_le(char* out, std::uint64_t v, unsigned bytes) noexcept {
    for (unsigned i = 0; i < bytes; ++i) out[i] = static_cast<char>(static_cast<std::uint8_t>(v >> (8 * i)));
}

}  // namespace

error for_each_raw_chunk(const tensor_data& d, error (*chunk)(void* user, const char* data, std::size_t size),
                         void* user) noexcept {
    if (d.type() == 0 || d.info().kind == element_kind::string) return error(errc::bad_data_type, d.describe().offset);
    if (d.empty()) return error();
    if (d.storage() == storage_kind::raw || d.storage() == storage_kind::external)
        return chunk(user, d.bytes().data(), d.bytes().size());
    const byte_blocks blocks = d.blocks();
    if (blocks.ok()) {  // fixed-width typed entries are little-endian on the wire already
        for (std::string_view b : blocks)
            if (error e = chunk(user, b.data(), b.size())) return e;
        return blocks.err();
    }
    const data_type_info& info = d.info();
    const unsigned part_bytes = info.part_bits() / 8;
    const bool complex = info.kind == element_kind::complex;
    char buffer[4096];
    std::size_t used = 0;
    unsigned sub = 0;  // sub-byte elements already in buffer[used]
    element_cursor c(d);
    std::uint64_t lo = 0, hi = 0, n = 0;
    while (c.next(lo, hi)) {
        ++n;
        if (used + 16 > sizeof buffer) {
            if (error e = chunk(user, buffer, used)) return e;
            used = 0;
        }
        if (info.sub_byte()) {
            if (sub == 0) buffer[used] = 0;
            buffer[used] = static_cast<char>(static_cast<std::uint8_t>(buffer[used]) | (lo << (sub * info.bits)));
            if (++sub == info.elements_per_entry) sub = 0, ++used;
            continue;
        }
        store_le(buffer + used, lo, part_bytes);
        used += part_bytes;
        if (complex) {
            store_le(buffer + used, hi, part_bytes);
            used += part_bytes;
        }
    }
    if (sub != 0) ++used;  // the last byte, its high bits zero
    if (n != d.size()) return error(errc::payload_size_mismatch, d.describe().offset);
    return used != 0 ? chunk(user, buffer, used) : error();
}

}  // namespace onnxview
