// onnxview/tensor_ranges.hpp - the ranges tensor_data hands out: elements
// as their natural type (element_range<T>, strings included), converted to
// float or double (scalar_range<D>), and the payload as zero-copy blocks of
// bytes (byte_blocks). Each decodes on the fly and copies nothing; each is
// valid while the bytes of the tensor_data that made it are.
#ifndef ONNXVIEW_TENSOR_RANGES_HPP
#define ONNXVIEW_TENSOR_RANGES_HPP

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "onnxview/input_iterator.hpp"
#include "onnxview/tensor_decode.hpp"

namespace onnxview {

// A tensor's payload as blocks of bytes in raw_data layout (little-endian
// elements back to back), zero-copy: see tensor_data::blocks().
class byte_blocks {
public:
    byte_blocks() noexcept = default;
    explicit byte_blocks(error e) noexcept : err_(e) {}
    explicit byte_blocks(std::string_view whole) noexcept : whole_(whole), single_(true) {}
    byte_blocks(const wire::message& scope, std::uint32_t number, unsigned width) noexcept
        : scope_(scope), number_(number), width_(width) {}

    class iterator : public detail::input_iterator<iterator, std::string_view> {
    public:
        iterator() noexcept = default;  // the end
        explicit iterator(const byte_blocks& b) noexcept : owner_(&b) {
            if (b.single_) {
                current_ = b.whole_;
                if (current_.empty()) owner_ = nullptr;
                return;
            }
            cursor_ = b.scope_.fields();
            advance();
        }
        std::string_view operator*() const noexcept { return current_; }

    private:
        friend detail::input_iterator<iterator, std::string_view>;
        bool at_end() const noexcept { return owner_ == nullptr; }
        void advance() noexcept {
            if (owner_ != nullptr && owner_->single_) {  // the one block is done
                owner_ = nullptr;
                return;
            }
            wire::field f;
            while (owner_ != nullptr && cursor_.next(f)) {
                if (f.number != owner_->number_) continue;
                const bool unpacked = (owner_->width_ == 4 && f.type == wire::wire_type::fixed32) ||
                                      (owner_->width_ == 8 && f.type == wire::wire_type::fixed64);
                if (unpacked) current_ = std::string_view(f.payload, owner_->width_);
                else if (f.type == wire::wire_type::length_delimited) current_ = f.bytes();
                else continue;  // another wire type: an unknown field
                return;
            }
            owner_ = nullptr;  // validated by tensor_data::make: no error to report
        }
        const byte_blocks* owner_ = nullptr;
        wire::message::cursor cursor_;
        std::string_view current_;
    };

    // The range must outlive its iterators.
    iterator begin() const noexcept { return err_.ok() ? iterator(*this) : iterator(); }
    iterator end() const noexcept { return iterator(); }
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }

private:
    error err_;
    std::string_view whole_;
    bool single_ = false;
    wire::message scope_;
    std::uint32_t number_ = 0;
    unsigned width_ = 0;
};

// The elements of a tensor as their natural type T; an input range. A range
// made for the wrong T is empty and carries the error (err()), so it can be
// used directly in a range-for.
template <class T>
class element_range {
public:
    element_range() noexcept = default;
    explicit element_range(error e) noexcept : err_(e) {}
    element_range(const element_cursor& c, unsigned part_bits, std::uint64_t n) noexcept
        : cursor_(c), part_bits_(part_bits), size_(n) {}
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }

    class iterator : public detail::input_iterator<iterator, T> {
    public:
        iterator() noexcept = default;
        iterator(const element_cursor& c, unsigned part_bits) noexcept
            : cursor_(c), part_bits_(part_bits), done_(false) {
            advance();
        }
        T operator*() const noexcept { return value_; }

    private:
        friend detail::input_iterator<iterator, T>;
        bool at_end() const noexcept { return done_; }
        void advance() noexcept {
            std::uint64_t lo, hi;
            if (!cursor_.next(lo, hi)) {
                done_ = true;
                return;
            }
            value_ = detail::from_bits<T>(lo, hi, part_bits_);
        }
        element_cursor cursor_;
        unsigned part_bits_ = 0;
        bool done_ = true;
        T value_{};
    };

    iterator begin() const noexcept { return iterator(cursor_, part_bits_); }
    iterator end() const noexcept { return iterator(); }
    std::uint64_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

private:
    element_cursor cursor_;
    unsigned part_bits_ = 0;
    std::uint64_t size_ = 0;
    error err_;
};

// The strings of a STRING tensor: views into the model's bytes, no copy.
// Made for a tensor of another type, it is empty and carries the error.
template <>
class element_range<std::string_view> {
public:
    using iterator = string_range::iterator;

    element_range() noexcept = default;
    explicit element_range(error e) noexcept : err_(e) {}
    explicit element_range(const string_range& strings) noexcept : strings_(strings) {}
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }

    iterator begin() const noexcept { return strings_.begin(); }
    iterator end() const noexcept { return strings_.end(); }
    std::uint64_t size() const noexcept { return strings_.size(); }
    bool empty() const noexcept { return strings_.empty(); }

private:
    string_range strings_;
    error err_;
};

// The scalars of a numeric tensor converted to D (float or double): one per
// element, two (real, imaginary) per complex element. An input range.
template <class D>
class scalar_range {
    static_assert(std::is_same<D, float>::value || std::is_same<D, double>::value,
                  "scalars are float or double");

public:
    scalar_range() noexcept = default;
    explicit scalar_range(error e) noexcept : err_(e) {}
    scalar_range(const element_cursor& c, const data_type_info* info, std::uint64_t n) noexcept
        : cursor_(c), info_(info), size_(n) {}
    error err() const noexcept { return err_; }
    bool ok() const noexcept { return err_.ok(); }

    class iterator : public detail::input_iterator<iterator, D> {
    public:
        iterator() noexcept = default;
        iterator(const element_cursor& c, const data_type_info* info) noexcept
            : cursor_(c), info_(info), done_(false) {
            advance();
        }
        D operator*() const noexcept { return value_; }

    private:
        friend detail::input_iterator<iterator, D>;
        bool at_end() const noexcept { return done_; }
        void advance() noexcept {
            if (pending_) {
                pending_ = false;
                value_ = detail::scalar_to<D>(*info_, imag_);
                return;
            }
            std::uint64_t lo;
            if (!cursor_.next(lo, imag_)) {
                done_ = true;
                return;
            }
            pending_ = info_->kind == element_kind::complex;
            value_ = detail::scalar_to<D>(*info_, lo);
        }
        element_cursor cursor_;
        const data_type_info* info_ = nullptr;
        std::uint64_t imag_ = 0;
        bool pending_ = false;
        bool done_ = true;
        D value_{};
    };

    iterator begin() const noexcept { return iterator(cursor_, info_); }
    iterator end() const noexcept { return iterator(); }
    // Number of scalars: N, or 2N for complex.
    std::uint64_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

private:
    element_cursor cursor_;
    const data_type_info* info_ = nullptr;
    std::uint64_t size_ = 0;
    error err_;
};

}  // namespace onnxview

#endif  // ONNXVIEW_TENSOR_RANGES_HPP
