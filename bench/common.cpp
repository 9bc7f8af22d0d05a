// Element conversions and the file mapping shared by every competitor.
#include "common.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace bench {

std::string walk_result::str() const {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "graphs=%llu nodes=%llu attributes=%llu tensors=%llu dims=%llu value_infos=%llu "
                  "functions=%llu string_bytes=%llu int_sum=%016llx elements=%llu value_bits=%016llx "
                  "value_sum=%.17g",
                  (unsigned long long)graphs, (unsigned long long)nodes,
                  (unsigned long long)attributes, (unsigned long long)tensors,
                  (unsigned long long)dims, (unsigned long long)value_infos,
                  (unsigned long long)functions, (unsigned long long)string_bytes,
                  (unsigned long long)int_sum, (unsigned long long)elements,
                  (unsigned long long)value_bits, value_sum);
    return buf;
}

void walk_result::add(const walk_result& o) noexcept {
    graphs += o.graphs;
    nodes += o.nodes;
    attributes += o.attributes;
    tensors += o.tensors;
    dims += o.dims;
    value_infos += o.value_infos;
    functions += o.functions;
    string_bytes += o.string_bytes;
    int_sum += o.int_sum;
    elements += o.elements;
    value_bits += o.value_bits;
    value_sum += o.value_sum;
}

namespace {
template <class T>
T load(const char* p) noexcept {
    T v;
    std::memcpy(&v, p, sizeof v);  // raw_data is little-endian and unaligned
    return v;
}
}  // namespace

template <class Load>
void tensor_sum::add_fixed(const char* p, std::size_t count, std::size_t width, Load ld) noexcept {
    std::size_t i = 0;
    for (; i < count && (n_ & 7) != 0; ++i) add(ld(p + i * width));
    // Whole blocks of eight from lane 0: independent lanes kept in registers.
    const std::size_t first = i, last = i + (count - i) / 8 * 8;
    double a[8];
    for (int k = 0; k < 8; ++k) a[k] = acc_[k];
    for (; i < last; i += 8) {
        for (int k = 0; k < 8; ++k) a[k] += ld(p + (i + k) * width);
    }
    for (int k = 0; k < 8; ++k) acc_[k] = a[k];
    n_ += last - first;
    for (; i < count; ++i) add(ld(p + i * width));
}

void tensor_sum::add_float_block(const float* p, std::size_t n) noexcept {
    add_raw(1, reinterpret_cast<const char*>(p), n * sizeof(float));
}

void tensor_sum::add_double_block(const double* p, std::size_t n) noexcept {
    add_raw(11, reinterpret_cast<const char*>(p), n * sizeof(double));
}

void tensor_sum::add_raw(std::int32_t dtype, const char* p, std::size_t bytes) noexcept {
    using namespace onnxview;
    switch (dtype) {
        case 1:   // FLOAT
        case 14:  // COMPLEX64: two floats per element
            return add_fixed(p, bytes / 4, 4, [](const char* q) { return double(load<float>(q)); });
        case 11:  // DOUBLE
        case 15:  // COMPLEX128
            return add_fixed(p, bytes / 8, 8, [](const char* q) { return load<double>(q); });
        case 2: return add_fixed(p, bytes, 1, [](const char* q) { return double(load<std::uint8_t>(q)); });
        case 3: return add_fixed(p, bytes, 1, [](const char* q) { return double(load<std::int8_t>(q)); });
        case 9: return add_fixed(p, bytes, 1, [](const char* q) { return double(load<std::uint8_t>(q) != 0); });
        case 4: return add_fixed(p, bytes / 2, 2, [](const char* q) { return double(load<std::uint16_t>(q)); });
        case 5: return add_fixed(p, bytes / 2, 2, [](const char* q) { return double(load<std::int16_t>(q)); });
        case 6: return add_fixed(p, bytes / 4, 4, [](const char* q) { return double(load<std::int32_t>(q)); });
        case 7: return add_fixed(p, bytes / 8, 8, [](const char* q) { return double(load<std::int64_t>(q)); });
        case 12: return add_fixed(p, bytes / 4, 4, [](const char* q) { return double(load<std::uint32_t>(q)); });
        case 13: return add_fixed(p, bytes / 8, 8, [](const char* q) { return double(load<std::uint64_t>(q)); });
        case 10:
            return add_fixed(p, bytes / 2, 2, [](const char* q) { return float16_to_double(load<std::uint16_t>(q)); });
        case 16:
            return add_fixed(p, bytes / 2, 2, [](const char* q) { return bfloat16_to_double(load<std::uint16_t>(q)); });
        case 17: return add_fixed(p, bytes, 1, [](const char* q) { return float8e4m3fn_to_double(load<std::uint8_t>(q)); });
        case 18: return add_fixed(p, bytes, 1, [](const char* q) { return float8e4m3fnuz_to_double(load<std::uint8_t>(q)); });
        case 19: return add_fixed(p, bytes, 1, [](const char* q) { return float8e5m2_to_double(load<std::uint8_t>(q)); });
        case 20: return add_fixed(p, bytes, 1, [](const char* q) { return float8e5m2fnuz_to_double(load<std::uint8_t>(q)); });
        default: return;  // strings and types newer than ONNX 1.12: not summed by anyone
    }
}

// int32_data holds every type narrower than 32 bits, one entry per element,
// low bits significant (FLOAT16/BFLOAT16 as their bit pattern).
void tensor_sum::add_int32_field(std::int32_t dtype, std::int32_t v) noexcept {
    using namespace onnxview;
    const auto u = static_cast<std::uint32_t>(v);
    switch (dtype) {
        case 10: return add(float16_to_double(static_cast<std::uint16_t>(u)));
        case 16: return add(bfloat16_to_double(static_cast<std::uint16_t>(u)));
        case 2: return add(double(static_cast<std::uint8_t>(u)));
        case 3: return add(double(static_cast<std::int8_t>(u)));
        case 4: return add(double(static_cast<std::uint16_t>(u)));
        case 5: return add(double(static_cast<std::int16_t>(u)));
        case 9: return add(double((u & 0xFF) != 0));
        case 17: return add(float8e4m3fn_to_double(static_cast<std::uint8_t>(u)));
        case 18: return add(float8e4m3fnuz_to_double(static_cast<std::uint8_t>(u)));
        case 19: return add(float8e5m2_to_double(static_cast<std::uint8_t>(u)));
        case 20: return add(float8e5m2fnuz_to_double(static_cast<std::uint8_t>(u)));
        default: return add(double(v));
    }
}

file_map::~file_map() {
    if (data_) ::munmap(const_cast<char*>(data_), size_);
}

bool file_map::open(const char* path, int hint, std::string& err) {
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        err = std::string("open: ") + std::strerror(errno);
        return false;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0 || st.st_size == 0) {
        err = "fstat or empty file";
        ::close(fd);
        return false;
    }
    void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) {
        err = std::string("mmap: ") + std::strerror(errno);
        return false;
    }
    data_ = static_cast<const char*>(p);
    size_ = static_cast<std::size_t>(st.st_size);
    if (hint >= 0) ::madvise(p, size_, hint);
    return true;
}

}  // namespace bench
