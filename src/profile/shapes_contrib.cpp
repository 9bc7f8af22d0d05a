// Shapes and costs of the com.microsoft operators that exported and
// onnxruntime-optimized transformers use (onnxruntime's ContribOperators:
// Attention, MultiHeadAttention, GroupQueryAttention, SkipLayerNormalization
// and its simplified form, EmbedLayerNormalization, RotaryEmbedding,
// MatMulNBits, FusedMatMul, the Gelu family, BiasAdd, Quantize/
// DequantizeLinear), checked against onnxruntime's outputs by
// tests/oracle/profile_ort_oracle.py.
//
// The attention ops cost their projections (Attention's packed QKV weight)
// plus Q x K^T and the weights x V over every query and key position:
// B x S x T x (q hidden + v hidden) MACs, T the keys (past + new); FLOPs 2 x
// MACs plus the bias and 3 per score for the softmax.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "onnxview/data_types.hpp"
#include "rules.hpp"

namespace onnxview {
namespace profile_detail {
namespace {

constexpr std::int32_t float_type = static_cast<std::int32_t>(data_type::float32);

// The dims [B, S, D] of input i, else null and `reason` set.
const value_shape* rank3_input(const node_context& c, std::size_t i, std::string& reason) {
    const value_shape* s = ranked_input(c, i, reason);
    if (s && s->dims.size() != 3) {
        reason = "input " + std::to_string(i) + " not of rank 3";
        return nullptr;
    }
    return s;
}

bool has_input(const node_context& c, std::size_t i) {
    return i < c.input_names.size() && !c.input_names[i].empty();
}

value_shape dims_of(std::vector<quantity> dims) { return shape_of(dims); }

// What the attention ops share for their costs: batch, query length, key
// length (past and new), and the hidden sizes of Q (= K) and V.
struct attention_sizes {
    quantity batch, queries, keys, q_hidden, v_hidden, heads;
    quantity projection_macs = quantity(std::int64_t{0});
    quantity bias = quantity(std::int64_t{0});
};

// Attention(input [B,S,Din], weights [Din, Q+K+V], bias, mask_index, past
// [2,B,N,P,H], ...): output [B,S,V], present [2,B,N,P+S,H].
std::string attention(const node_context& c, std::vector<value_fact>& out, attention_sizes& z) {
    std::string reason;
    const value_shape* x = rank3_input(c, 0, reason);
    const value_shape* w = x ? ranked_input(c, 1, reason) : nullptr;
    if (!w) return reason;
    if (w->dims.size() != 2) return "weights not of rank 2";
    const std::int64_t heads = c.int_attribute("num_heads", 0);
    if (heads <= 0) return "no positive num_heads";
    quantity q_hidden, k_hidden, v_hidden;
    if (const std::optional<std::vector<std::int64_t>> sizes = c.ints_attribute("qkv_hidden_sizes")) {
        if (sizes->size() != 3) return "qkv_hidden_sizes not of 3 sizes";
        q_hidden = quantity((*sizes)[0]);
        k_hidden = quantity((*sizes)[1]);
        v_hidden = quantity((*sizes)[2]);
    } else {
        q_hidden = k_hidden = v_hidden = divide_exactly(w->dims[1], quantity(std::int64_t{3}));
    }
    quantity past(std::int64_t{0});
    const value_shape* p = has_input(c, 4) ? ranked_input(c, 4, reason) : nullptr;
    if (has_input(c, 4) && !p) return reason;
    if (p) {
        if (p->dims.size() != 5) return "past not of rank 5";
        past = p->dims[3];
    }
    out[0].elem_type = input_type(c, 0);
    out[0].shape = dims_of({x->dims[0], x->dims[1], v_hidden});
    const quantity head_size = divide_exactly(k_hidden, quantity(heads));
    if (out.size() > 1) {
        out[1].shape = dims_of({quantity(std::int64_t{2}), x->dims[0], quantity(heads), plus(past, x->dims[1]), head_size});
        out[1].elem_type = input_type(c, 0);
    }
    z = {x->dims[0], x->dims[1], plus(past, x->dims[1]), q_hidden, v_hidden, quantity(heads)};
    z.projection_macs = times(times(times(x->dims[0], x->dims[1]), w->dims[0]), w->dims[1]);
    if (has_input(c, 2)) z.bias = times(times(x->dims[0], x->dims[1]), w->dims[1]);
    return std::string();
}

// The sequence length and hidden size of a key or value input: [B,L,D], or
// [B,N,L,H] (already split into heads).
bool key_dims(const value_shape& s, quantity& length, quantity& hidden) {
    if (s.dims.size() == 3) {
        length = s.dims[1];
        hidden = s.dims[2];
        return true;
    }
    if (s.dims.size() == 4) {
        length = s.dims[2];
        hidden = times(s.dims[1], s.dims[3]);
        return true;
    }
    return false;
}

// MultiHeadAttention(query [B,S,D], key [B,L,D] or [B,N,L,H], value,
// bias, key_padding_mask, attention_bias, past_key [B,N,P,H], past_value):
// output [B,S,Dv], present_key [B,N,P+L,H], present_value [B,N,P+L,Hv]. A
// query packed with its key and value ([B,S,N,3,H], no key) gives Dv = N x H.
std::string multi_head_attention(const node_context& c, std::vector<value_fact>& out, attention_sizes& z) {
    std::string reason;
    const value_shape* q = ranked_input(c, 0, reason);
    if (!q) return reason;
    const std::int64_t heads = c.int_attribute("num_heads", 0);
    if (heads <= 0) return "no positive num_heads";
    quantity keys, q_hidden, v_hidden;
    if (q->dims.size() == 5 && !has_input(c, 1)) {
        keys = q->dims[1];
        q_hidden = v_hidden = times(q->dims[2], q->dims[4]);
    } else if (q->dims.size() == 3) {
        q_hidden = q->dims[2];
        const value_shape* k = has_input(c, 1) ? ranked_input(c, 1, reason) : nullptr;
        const value_shape* v = k && has_input(c, 2) ? ranked_input(c, 2, reason) : nullptr;
        quantity k_hidden;
        if (k == nullptr) {
            if (has_input(c, 1)) return reason;
            return "query without a key is not covered unless packed [B,S,N,3,H]";
        }
        if (k->dims.size() == 5) {  // packed key and value [B,L,N,2,H]
            keys = k->dims[1];
            v_hidden = times(k->dims[2], k->dims[4]);
        } else {
            if (!key_dims(*k, keys, k_hidden)) return "key not of rank 3 or 4";
            quantity v_length;
            if (v == nullptr) return has_input(c, 2) ? reason : "a key without a value";
            if (!key_dims(*v, v_length, v_hidden)) return "value not of rank 3 or 4";
        }
    } else {
        return "query not of rank 3 (or packed [B,S,N,3,H])";
    }
    quantity past(std::int64_t{0});
    if (has_input(c, 6)) {
        const value_shape* p = ranked_input(c, 6, reason);
        if (!p) return reason;
        if (p->dims.size() != 4) return "past_key not of rank 4";
        past = p->dims[2];
    }
    const quantity total = plus(past, keys);
    out[0].elem_type = input_type(c, 0);
    out[0].shape = dims_of({q->dims[0], q->dims[1], v_hidden});
    const quantity n(heads);
    for (std::size_t i = 1; i < out.size() && i < 3; ++i) {
        out[i].elem_type = input_type(c, 0);
        out[i].shape = dims_of({q->dims[0], n, total, divide_exactly(i == 1 ? q_hidden : v_hidden, n)});
    }
    z = {q->dims[0], q->dims[1], total, q_hidden, v_hidden, n};
    return std::string();
}

// GroupQueryAttention(query [B,S,D], key [B,S,Dkv], value, past_key
// [B,Nkv,P,H], past_value, seqlens_k, total_sequence_length, ...): output
// [B,S,N x H], present_key and present_value [B,Nkv,T,H], T the larger of P
// and total_sequence_length (a value: known when the model stores it, else
// data-dependent); with no key, the query packs Q, K and V:
// [B,S,(N + 2 Nkv) x H].
std::string group_query_attention(const node_context& c, std::vector<value_fact>& out, attention_sizes& z) {
    std::string reason;
    const value_shape* q = rank3_input(c, 0, reason);
    if (!q) return reason;
    const std::int64_t heads = c.int_attribute("num_heads", 0);
    const std::int64_t kv_heads = c.int_attribute("kv_num_heads", 0);
    if (heads <= 0 || kv_heads <= 0) return "no positive num_heads and kv_num_heads";
    const quantity head_size =
        has_input(c, 1) ? divide_exactly(q->dims[2], quantity(heads))
                        : divide_exactly(q->dims[2], quantity(heads + 2 * kv_heads));
    quantity past(std::int64_t{0});
    if (has_input(c, 3)) {
        const value_shape* p = ranked_input(c, 3, reason);
        if (!p) return reason;
        if (p->dims.size() != 4) return "past_key not of rank 4";
        past = p->dims[2];
    }
    quantity total;
    if (const std::vector<quantity>* t = known_values(c, 6); t && t->size() == 1) {
        const dim_order o = compare(past.value, (*t)[0].value);
        if (o != dim_order::unordered) total = o == dim_order::greater_or_equal ? past : (*t)[0];
    }
    if (!total.known) total = data_dependent(c, 1, 2);
    const quantity hidden = times(head_size, heads);
    out[0].elem_type = input_type(c, 0);
    out[0].shape = dims_of({q->dims[0], q->dims[1], hidden});
    for (std::size_t i = 1; i < out.size() && i < 3; ++i) {
        out[i].elem_type = input_type(c, 0);
        out[i].shape = dims_of({q->dims[0], quantity(kv_heads), total, head_size});
    }
    z = {q->dims[0], q->dims[1], total, hidden, hidden, quantity(heads)};
    return std::string();
}

// SkipLayerNormalization and SkipSimplifiedLayerNormalization: output and
// input_skip_bias_sum the input's shape, mean and inv_std_var with the
// last axis 1 (the outputs: output, mean, inv_std_var, sum).
std::string skip_layer_norm(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* x = ranked_input(c, 0, reason);
    if (!x) return reason;
    if (x->dims.empty()) return "input of rank 0";
    for (std::size_t i = 0; i < out.size() && i < 4; ++i) {
        out[i].elem_type = i == 1 || i == 2 ? float_type : input_type(c, 0);
        out[i].shape = *x;
        if (i == 1 || i == 2) out[i].shape.dims.back() = quantity(std::int64_t{1});
    }
    return std::string();
}

// EmbedLayerNormalization(input_ids [B,S], segment_ids, word_embedding
// [V,H], ...): output [B,S,H], mask_index [B], embedding_sum [B,S,H].
std::string embed_layer_norm(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* ids = ranked_input(c, 0, reason);
    const value_shape* words = ids ? ranked_input(c, 2, reason) : nullptr;
    if (!words) return reason;
    if (ids->dims.size() != 2 || words->dims.size() != 2) return "input_ids or word_embedding not of rank 2";
    out[0].elem_type = input_type(c, 2);
    out[0].shape = dims_of({ids->dims[0], ids->dims[1], words->dims[1]});
    if (out.size() > 1) {
        out[1].elem_type = static_cast<std::int32_t>(data_type::int32);
        out[1].shape = dims_of({ids->dims[0]});
    }
    if (out.size() > 2) out[2] = out[0];
    return std::string();
}

// FusedMatMul: MatMul of A and B each transposed in its last two axes when
// transA / transB say so.
std::string fused_matmul(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* a = ranked_input(c, 0, reason);
    const value_shape* b = a ? ranked_input(c, 1, reason) : nullptr;
    if (!b) return reason;
    if (a->dims.size() < 2 || b->dims.size() < 2) return "FusedMatMul of an operand of rank below 2";
    if (c.int_attribute("transBatchA", 0) != 0 || c.int_attribute("transBatchB", 0) != 0)
        return "transBatchA and transBatchB not covered";
    value_shape ta = *a, tb = *b;
    if (c.int_attribute("transA", 0) != 0) std::swap(ta.dims[ta.dims.size() - 1], ta.dims[ta.dims.size() - 2]);
    if (c.int_attribute("transB", 0) != 0) std::swap(tb.dims[tb.dims.size() - 1], tb.dims[tb.dims.size() - 2]);
    value_shape batch_a = ta, batch_b = tb;
    batch_a.dims.resize(ta.dims.size() - 2);
    batch_b.dims.resize(tb.dims.size() - 2);
    out[0].elem_type = input_type(c, 0);
    out[0].shape = broadcast(batch_a, batch_b);
    out[0].shape.dims.push_back(ta.dims[ta.dims.size() - 2]);
    out[0].shape.dims.push_back(tb.dims.back());
    return std::string();
}

// MatMulNBits(A [..., K], B packed, scales, ...; K, N): [..., N].
std::string matmul_nbits(const node_context& c, std::vector<value_fact>& out) {
    std::string reason;
    const value_shape* a = ranked_input(c, 0, reason);
    if (!a) return reason;
    const std::int64_t n = c.int_attribute("N", 0);
    if (a->dims.empty() || n <= 0) return "A of rank 0 or no positive N";
    out[0].elem_type = input_type(c, 0);
    out[0].shape = *a;
    out[0].shape.dims.back() = quantity(n);
    return std::string();
}

bool same_shape_contrib(std::string_view op) {
    for (std::string_view s : {"BiasGelu", "FastGelu", "QuickGelu", "Gelu", "BiasAdd", "RotaryEmbedding",
                               "QuantizeLinear", "DequantizeLinear", "SimplifiedLayerNormalization"})
        if (op == s) return true;
    return false;
}

// FLOPs per output element of the elementwise contrib ops.
std::int64_t elementwise_flops(const node_context& c, std::string_view op) {
    if (op == "BiasGelu" || op == "BiasAdd" || (op == "FastGelu" && has_input(c, 1))) return 2;
    if (op == "RotaryEmbedding") return 3;  // x cos + rotate(x) sin
    if (op == "SimplifiedLayerNormalization") return 4;
    return 1;
}

std::string attention_cost(const attention_sizes& z, node_cost& cost) {
    // Q x K^T: B x S x T x q_hidden; weights x V: B x S x T x v_hidden.
    const quantity scores_per_head = times(times(z.batch, z.queries), z.keys);
    const quantity macs = plus(z.projection_macs, times(scores_per_head, plus(z.q_hidden, z.v_hidden)));
    if (!macs.known) return "MACs not computable (unknown or overflowing sizes)";
    cost.macs = macs;
    cost.flops = plus(plus(times(macs, 2), z.bias), times(times(scores_per_head, z.heads), 3));
    return cost.flops.known ? std::string() : "FLOPs not computable (unknown or overflowing sizes)";
}

}  // namespace

rule_outcome infer_contrib_op(const node_context& c, std::string_view op, std::vector<value_fact>& out) {
    attention_sizes ignored;
    if (op == "Attention") return attention(c, out, ignored);
    if (op == "MultiHeadAttention") return multi_head_attention(c, out, ignored);
    if (op == "GroupQueryAttention") return group_query_attention(c, out, ignored);
    if (op == "SkipLayerNormalization" || op == "SkipSimplifiedLayerNormalization") return skip_layer_norm(c, out);
    if (op == "EmbedLayerNormalization") return embed_layer_norm(c, out);
    if (op == "FusedMatMul") return fused_matmul(c, out);
    if (op == "MatMulNBits") return matmul_nbits(c, out);
    if (same_shape_contrib(op)) {
        std::string reason;
        const value_shape* x = ranked_input(c, 0, reason);
        if (!x) return reason;
        out[0].shape = *x;
        out[0].elem_type = op == "QuantizeLinear"     ? (has_input(c, 2) ? input_type(c, 2) : input_type(c, 0))
                           : op == "DequantizeLinear" ? input_type(c, 1)
                                                      : input_type(c, 0);
        return std::string();
    }
    return std::nullopt;
}

std::optional<std::string> contrib_costs(const node_context& c, std::string_view op,
                                         const std::vector<value_fact>& outputs, node_cost& cost) {
    attention_sizes z;
    std::vector<value_fact> scratch(outputs.size());
    std::string why;
    if (op == "Attention") why = attention(c, scratch, z);
    else if (op == "MultiHeadAttention") why = multi_head_attention(c, scratch, z);
    else if (op == "GroupQueryAttention") why = group_query_attention(c, scratch, z);
    else if (op != "FusedMatMul" && op != "MatMulNBits" && !same_shape_contrib(op) && op != "SkipLayerNormalization" &&
             op != "SkipSimplifiedLayerNormalization" && op != "EmbedLayerNormalization")
        return std::nullopt;
    if (!why.empty()) return why;
    if (op == "Attention" || op == "MultiHeadAttention" || op == "GroupQueryAttention") return attention_cost(z, cost);
    const quantity elements = outputs.empty() ? quantity() : outputs[0].shape.element_count();
    if (!elements.known) return std::string("output shape not fully known");
    cost.macs = quantity(std::int64_t{0});
    if (op == "FusedMatMul" || op == "MatMulNBits") {
        // Output elements x K, K the reduced axis of A (before any transposition, at A's end or transA's front).
        std::string reason;
        const value_shape* a = ranked_input(c, 0, reason);
        if (!a) return reason;
        const bool trans_a = op == "FusedMatMul" && c.int_attribute("transA", 0) != 0;
        const quantity k = trans_a ? a->dims[a->dims.size() - 2] : a->dims.back();
        cost.macs = times(elements, k);
        cost.flops = times(cost.macs, 2);
        if (op == "MatMulNBits" && has_input(c, 5)) cost.flops = plus(cost.flops, elements);
    } else if (op == "SkipLayerNormalization" || op == "SkipSimplifiedLayerNormalization") {
        cost.flops = times(elements, 7);  // the normalisation's 5, the skip and the bias
    } else if (op == "EmbedLayerNormalization") {
        cost.flops = times(elements, 7);  // the embeddings' sums and the normalisation
    } else {
        cost.flops = times(elements, elementwise_flops(c, op));
    }
    return cost.macs.known && cost.flops.known ? std::string() : std::string("FLOPs not computable (unknown or overflowing sizes)");
}

}  // namespace profile_detail
}  // namespace onnxview
