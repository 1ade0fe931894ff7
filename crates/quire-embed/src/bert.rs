//! A BERT encoder's forward pass on the CPU, for inference: what
//! `transformers`' `BertModel` computes (token, position and type-0
//! embeddings, post-norm layers of multi-head self-attention and an
//! erf-GELU feed-forward), then mean pooling over each text's tokens.
//!
//! Written by hand on the `gemm` crate's matrix products because candle's
//! `BertModel`, profiled on the help vault's chunks, spent about two
//! thirds of its time outside them (an allocation per element-wise op,
//! scalar `erf` and `exp` from libm, tensors copied to be contiguous),
//! which made it three times slower than onnxruntime on the same texts.
//! Here:
//!
//! - **No padding.** The texts of a batch are packed row after row; the
//!   dense layers run over real tokens only, and attention runs per text
//!   over its own tokens, so a short text beside a long one costs nothing
//!   (padded keys would get zero weight anyway).
//! - **Fused steps.** The query, key and value projections are one
//!   product; biases and residuals are written into the destination before
//!   the product adds to it; the attention scale is the product's factor.
//! - **Element-wise steps without calls** (`erf`, `exp` as polynomials), so
//!   that the compiler vectorizes them, and one set of buffers per batch.
//!
//! Each batch runs on one thread; [`crate::minilm`] runs batches on every
//! core at once.

use std::collections::HashMap;

/// The model's shape, from its `config.json`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub hidden: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub layers: usize,
    pub max_positions: usize,
    pub vocabulary: usize,
}

/// One encoder layer's weights, laid out for `x · W` products: each matrix
/// is stored as the checkpoint has it, `[out, in]`, and read transposed.
struct Layer {
    /// Query, key and value weights stacked: `[3·hidden, hidden]`.
    qkv: Vec<f32>,
    qkv_bias: Vec<f32>,
    attention_out: Vec<f32>,
    attention_out_bias: Vec<f32>,
    attention_norm: Norm,
    intermediate: Vec<f32>,
    intermediate_bias: Vec<f32>,
    output: Vec<f32>,
    output_bias: Vec<f32>,
    output_norm: Norm,
}

/// A layer norm's gain and bias.
struct Norm {
    gain: Vec<f32>,
    bias: Vec<f32>,
}

/// A BERT encoder's weights.
pub(crate) struct Bert {
    shape: Shape,
    epsilon: f32,
    words: Vec<f32>,
    positions: Vec<f32>,
    /// Token type 0's embedding: every token has type 0 here.
    type_zero: Vec<f32>,
    embedding_norm: Norm,
    layers: Vec<Layer>,
}

/// The checkpoint's tensors by name, as `f32` values and their shape.
pub(crate) type Tensors = HashMap<String, (Vec<usize>, Vec<f32>)>;

impl Bert {
    /// The encoder from a `BertModel` checkpoint's tensors (names as
    /// `transformers` saves them, with or without a `bert.` prefix).
    pub(crate) fn new(shape: Shape, epsilon: f32, tensors: Tensors) -> Result<Bert, String> {
        let h = shape.hidden;
        let i = shape.intermediate;
        if shape.heads == 0 || !h.is_multiple_of(shape.heads) {
            return Err(format!(
                "{} attention heads do not divide the hidden size {h}",
                shape.heads
            ));
        }
        let mut tensors = Checkpoint(tensors);
        let embedding_norm = tensors.norm("embeddings.LayerNorm", h)?;
        let mut layers = Vec::with_capacity(shape.layers);
        for layer in 0..shape.layers {
            let p = format!("encoder.layer.{layer}");
            let attention_norm = tensors.norm(&format!("{p}.attention.output.LayerNorm"), h)?;
            let output_norm = tensors.norm(&format!("{p}.output.LayerNorm"), h)?;
            let mut qkv = Vec::with_capacity(3 * h * h);
            let mut qkv_bias = Vec::with_capacity(3 * h);
            for part in ["query", "key", "value"] {
                qkv.extend(tensors.take(&format!("{p}.attention.self.{part}.weight"), &[h, h])?);
                qkv_bias.extend(tensors.take(&format!("{p}.attention.self.{part}.bias"), &[h])?);
            }
            layers.push(Layer {
                qkv,
                qkv_bias,
                attention_out: tensors
                    .take(&format!("{p}.attention.output.dense.weight"), &[h, h])?,
                attention_out_bias: tensors
                    .take(&format!("{p}.attention.output.dense.bias"), &[h])?,
                attention_norm,
                intermediate: tensors.take(&format!("{p}.intermediate.dense.weight"), &[i, h])?,
                intermediate_bias: tensors.take(&format!("{p}.intermediate.dense.bias"), &[i])?,
                output: tensors.take(&format!("{p}.output.dense.weight"), &[h, i])?,
                output_bias: tensors.take(&format!("{p}.output.dense.bias"), &[h])?,
                output_norm,
            });
        }
        let types = tensors.take("embeddings.token_type_embeddings.weight", &[2, h])?;
        Ok(Bert {
            shape,
            epsilon,
            words: tensors.take("embeddings.word_embeddings.weight", &[shape.vocabulary, h])?,
            positions: tensors.take(
                "embeddings.position_embeddings.weight",
                &[shape.max_positions, h],
            )?,
            type_zero: types[..h].to_vec(),
            embedding_norm,
            layers,
        })
    }

    /// The mean of each text's last hidden states over its tokens (not
    /// normalized). Each text is its token ids, special tokens included, at
    /// most `max_positions` long; an id past the vocabulary is an error.
    pub(crate) fn mean_pooled(&self, texts: &[&[u32]]) -> Result<Vec<Vec<f32>>, String> {
        let h = self.shape.hidden;
        for ids in texts {
            if ids.len() > self.shape.max_positions {
                return Err(format!(
                    "a text of {} tokens is longer than the model's {}",
                    ids.len(),
                    self.shape.max_positions
                ));
            }
            if let Some(id) = ids.iter().find(|&&id| id as usize >= self.shape.vocabulary) {
                return Err(format!("token id {id} is past the vocabulary"));
            }
        }
        let tokens: usize = texts.iter().map(|ids| ids.len()).sum();
        let mut buffers = Buffers::new(self.shape, tokens, texts);
        self.encode(texts, &mut buffers);
        let mut pooled = Vec::with_capacity(texts.len());
        let mut row = 0;
        for ids in texts {
            let mut mean = vec![0.0f32; h];
            for token in 0..ids.len() {
                let values = &buffers.hidden[(row + token) * h..(row + token + 1) * h];
                mean.iter_mut()
                    .zip(values)
                    .for_each(|(sum, value)| *sum += value);
            }
            let count = ids.len().max(1) as f32;
            mean.iter_mut().for_each(|value| *value /= count);
            pooled.push(mean);
            row += ids.len();
        }
        Ok(pooled)
    }

    /// The embeddings and every layer, compiled for the widest vectors the
    /// CPU has: the element-wise steps are a third of the time, and the
    /// baseline x86-64 target vectorizes them four lanes wide where
    /// AVX-512 has sixteen. The matrix products choose their own kernels.
    fn encode(&self, texts: &[&[u32]], buffers: &mut Buffers) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                // SAFETY: the CPU has AVX-512F, checked just above.
                return unsafe { self.encode_avx512(texts, buffers) };
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                // SAFETY: the CPU has AVX2 and FMA, checked just above.
                return unsafe { self.encode_avx2(texts, buffers) };
            }
        }
        self.encode_portable(texts, buffers);
    }

    /// [`Bert::encode_portable`] compiled for AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2,fma")]
    unsafe fn encode_avx512(&self, texts: &[&[u32]], buffers: &mut Buffers) {
        self.encode_portable(texts, buffers);
    }

    /// [`Bert::encode_portable`] compiled for AVX2 and FMA.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn encode_avx2(&self, texts: &[&[u32]], buffers: &mut Buffers) {
        self.encode_portable(texts, buffers);
    }

    /// The embeddings, then every layer, `buffers.hidden` out. Everything
    /// it calls is inlined into it, so that it compiles for the target
    /// features of the function it is inlined into.
    #[inline(always)]
    fn encode_portable(&self, texts: &[&[u32]], buffers: &mut Buffers) {
        self.embed_tokens(texts, &mut buffers.hidden);
        for layer in &self.layers {
            self.layer(layer, texts, buffers);
        }
    }

    /// `BertEmbeddings`: word + position + type-0 embeddings, normalized.
    #[inline(always)]
    fn embed_tokens(&self, texts: &[&[u32]], hidden: &mut [f32]) {
        let h = self.shape.hidden;
        let mut rows = hidden.chunks_exact_mut(h);
        for ids in texts {
            for (position, &id) in ids.iter().enumerate() {
                let row = rows.next().expect("one row per token");
                let word = &self.words[id as usize * h..][..h];
                let place = &self.positions[position * h..][..h];
                for (((out, w), p), t) in row.iter_mut().zip(word).zip(place).zip(&self.type_zero) {
                    *out = w + p + t;
                }
                layer_norm(row, &self.embedding_norm, self.epsilon);
            }
        }
    }

    /// One `BertLayer`: self-attention, add & norm, feed-forward, add &
    /// norm; `buffers.hidden` in, `buffers.hidden` out.
    #[inline(always)]
    fn layer(&self, layer: &Layer, texts: &[&[u32]], buffers: &mut Buffers) {
        let Shape {
            hidden: h,
            heads,
            intermediate: i,
            ..
        } = self.shape;
        let head_size = h / heads;
        let tokens = buffers.tokens;
        let scale = 1.0 / (head_size as f32).sqrt();

        // Query, key and value of every token: one product, bias first.
        fill_rows(&mut buffers.qkv, &layer.qkv_bias);
        linear(
            &mut buffers.qkv,
            &buffers.hidden,
            &layer.qkv,
            tokens,
            h,
            3 * h,
        );

        // Attention per text and head, over the text's own tokens.
        let mut start = 0;
        for ids in texts {
            let length = ids.len();
            if length == 0 {
                continue;
            }
            let scores = &mut buffers.scores[..length * length];
            for head in 0..heads {
                let query = buffers.qkv[start * 3 * h + head * head_size..].as_ptr();
                let key = buffers.qkv[start * 3 * h + h + head * head_size..].as_ptr();
                let value = buffers.qkv[start * 3 * h + 2 * h + head * head_size..].as_ptr();
                // SAFETY: both products read `length` rows of `head_size`
                // values at a row stride of 3h from `query`, `key` and
                // `value`, inside `qkv` (`tokens` rows of 3h, and
                // start + length <= tokens); they write `scores` (length²
                // values, row stride `length`) and `length` rows of
                // `head_size` values at a row stride of h in `context`
                // (`tokens` rows of h); no destination aliases a source.
                unsafe {
                    // scores = scale · Q Kᵀ (K read transposed).
                    product(
                        (length, length, head_size),
                        (scores.as_mut_ptr(), length),
                        View::rows(query, 3 * h),
                        View::columns(key, 3 * h),
                        Destination::Overwrite(scale),
                    );
                }
                for row in scores.chunks_exact_mut(length) {
                    softmax(row);
                }
                let context = buffers.context[start * h + head * head_size..].as_mut_ptr();
                // SAFETY: as above.
                unsafe {
                    // context = softmax(scores) V
                    product(
                        (length, head_size, length),
                        (context, h),
                        View::rows(scores.as_ptr(), length),
                        View::rows(value, 3 * h),
                        Destination::Overwrite(1.0),
                    );
                }
            }
            start += length;
        }

        // The rest works token by token: TILE_ROWS rows at a time, so that
        // the feed-forward's wide activations stay in the cache.
        for first in (0..tokens).step_by(TILE_ROWS) {
            let rows = TILE_ROWS.min(tokens - first);
            let hidden = &mut buffers.hidden[first * h..(first + rows) * h];
            let context = &buffers.context[first * h..(first + rows) * h];
            let intermediate = &mut buffers.intermediate[..rows * i];

            // Output projection, plus bias and residual, then norm.
            add_rows(hidden, &layer.attention_out_bias);
            linear(hidden, context, &layer.attention_out, rows, h, h);
            for row in hidden.chunks_exact_mut(h) {
                layer_norm(row, &layer.attention_norm, self.epsilon);
            }

            // Feed-forward: GELU(x W1 + b1) W2 + b2, plus residual, then norm.
            fill_rows(intermediate, &layer.intermediate_bias);
            linear(intermediate, hidden, &layer.intermediate, rows, h, i);
            intermediate
                .iter_mut()
                .for_each(|value| *value = gelu(*value));
            add_rows(hidden, &layer.output_bias);
            linear(hidden, intermediate, &layer.output, rows, i, h);
            for row in hidden.chunks_exact_mut(h) {
                layer_norm(row, &layer.output_norm, self.epsilon);
            }
        }
    }
}

/// The tokens whose output projection and feed-forward run together, so
/// that their 1,536 activations a token (6 MB for 1,024 rows) stay in the
/// cache between the steps instead of going out to memory at each one.
/// Measured on the help vault's `en/` chunks (`minilm_reference` bench):
/// 256 rows 13.37 s, 512 12.61 s, 1,024 12.32 s, 2,048 12.58 s, and all
/// of a batch's tokens (about 3,700) 12.81 s.
const TILE_ROWS: usize = 1024;

/// A checkpoint's tensors, taken out one by one.
struct Checkpoint(Tensors);

impl Checkpoint {
    /// The tensor `name` (or `bert.name`), which must have the shape
    /// `expected`.
    fn take(&mut self, name: &str, expected: &[usize]) -> Result<Vec<f32>, String> {
        let (found, values) = self
            .0
            .remove(name)
            .or_else(|| self.0.remove(&format!("bert.{name}")))
            .ok_or_else(|| format!("the tensor {name} is missing"))?;
        if found != expected {
            return Err(format!(
                "the tensor {name} has shape {found:?}, not {expected:?}"
            ));
        }
        Ok(values)
    }

    /// The layer norm `prefix` over `size` values.
    fn norm(&mut self, prefix: &str, size: usize) -> Result<Norm, String> {
        Ok(Norm {
            gain: self.take(&format!("{prefix}.weight"), &[size])?,
            bias: self.take(&format!("{prefix}.bias"), &[size])?,
        })
    }
}

/// The activations of one batch.
struct Buffers {
    tokens: usize,
    /// `[tokens, hidden]`: the layers' input and output.
    hidden: Vec<f32>,
    /// `[tokens, 3·hidden]`: queries, keys and values.
    qkv: Vec<f32>,
    /// `[tokens, hidden]`: attention's output, heads side by side.
    context: Vec<f32>,
    /// `[TILE_ROWS, intermediate]`: one tile's feed-forward activations.
    intermediate: Vec<f32>,
    /// One head's attention scores for the longest text.
    scores: Vec<f32>,
}

impl Buffers {
    fn new(shape: Shape, tokens: usize, texts: &[&[u32]]) -> Buffers {
        let longest = texts.iter().map(|ids| ids.len()).max().unwrap_or(0);
        Buffers {
            tokens,
            hidden: vec![0.0; tokens * shape.hidden],
            qkv: vec![0.0; tokens * 3 * shape.hidden],
            context: vec![0.0; tokens * shape.hidden],
            intermediate: vec![0.0; tokens.min(TILE_ROWS) * shape.intermediate],
            scores: vec![0.0; longest * longest],
        }
    }
}

/// `out += input · weightᵀ`: `input` is `[rows, inputs]`, `weight` is
/// `[outputs, inputs]` (a checkpoint's linear layer), `out` is
/// `[rows, outputs]`.
#[inline(always)]
fn linear(
    out: &mut [f32],
    input: &[f32],
    weight: &[f32],
    rows: usize,
    inputs: usize,
    outputs: usize,
) {
    assert!(out.len() >= rows * outputs && input.len() >= rows * inputs);
    assert_eq!(weight.len(), outputs * inputs);
    // SAFETY: the asserts above bound every read and write: `out` holds
    // rows × outputs (row stride outputs), `input` rows × inputs (row
    // stride inputs), and `weight` is read as its transpose, inputs ×
    // outputs; `out` is a distinct buffer.
    unsafe {
        product(
            (rows, outputs, inputs),
            (out.as_mut_ptr(), outputs),
            View::rows(input.as_ptr(), inputs),
            View::columns(weight.as_ptr(), inputs),
            Destination::Add,
        );
    }
}

/// A matrix in memory, row by row or column by column.
#[derive(Clone, Copy)]
struct View {
    start: *const f32,
    row_stride: isize,
    column_stride: isize,
}

impl View {
    /// Rows of consecutive values, `stride` values apart.
    fn rows(start: *const f32, stride: usize) -> View {
        View {
            start,
            row_stride: stride as isize,
            column_stride: 1,
        }
    }

    /// Columns of consecutive values, `stride` values apart: a row-major
    /// matrix read as its transpose.
    fn columns(start: *const f32, stride: usize) -> View {
        View {
            start,
            row_stride: 1,
            column_stride: stride as isize,
        }
    }
}

/// What a product does with its destination.
#[derive(Clone, Copy)]
enum Destination {
    /// `dst = factor · lhs · rhs`
    Overwrite(f32),
    /// `dst += lhs · rhs`
    Add,
}

/// The matrix product `lhs · rhs` of shape `(rows, columns, depth)` into
/// `dst` (its start and row stride), on the calling thread.
///
/// # Safety
///
/// `lhs` must be readable at every `(row, k)` for row < rows and
/// k < depth, `rhs` at every `(k, column)`, and `dst` writable (and, for
/// [`Destination::Add`], readable) at every `(row, column)`; `dst` must not
/// overlap `lhs` or `rhs`.
#[inline(always)]
unsafe fn product(
    (rows, columns, depth): (usize, usize, usize),
    (dst, dst_row_stride): (*mut f32, usize),
    lhs: View,
    rhs: View,
    destination: Destination,
) {
    if rows == 0 || columns == 0 {
        return;
    }
    let (read_dst, factor) = match destination {
        Destination::Overwrite(factor) => (false, factor),
        Destination::Add => (true, 1.0),
    };
    // SAFETY: the caller's promise, as gemm asks it: dst = alpha·dst +
    // beta·lhs·rhs, with alpha 1 read only when `read_dst`.
    unsafe {
        gemm::gemm(
            rows,
            columns,
            depth,
            dst,
            1,
            dst_row_stride as isize,
            read_dst,
            lhs.start,
            lhs.column_stride,
            lhs.row_stride,
            rhs.start,
            rhs.column_stride,
            rhs.row_stride,
            1.0,
            factor,
            false,
            false,
            false,
            gemm::Parallelism::None,
        );
    }
}

/// Every row of `matrix` set to `row`.
#[inline(always)]
fn fill_rows(matrix: &mut [f32], row: &[f32]) {
    for out in matrix.chunks_exact_mut(row.len()) {
        out.copy_from_slice(row);
    }
}

/// `row` added to every row of `matrix`.
#[inline(always)]
fn add_rows(matrix: &mut [f32], row: &[f32]) {
    for out in matrix.chunks_exact_mut(row.len()) {
        out.iter_mut()
            .zip(row)
            .for_each(|(value, add)| *value += add);
    }
}

/// `LayerNorm` in place: zero mean, unit (biased) variance, then gain and
/// bias.
#[inline(always)]
fn layer_norm(row: &mut [f32], norm: &Norm, epsilon: f32) {
    let count = row.len() as f32;
    let mean = sum(row.iter().copied(), row.len()) / count;
    let variance = sum(
        row.iter().map(|value| (value - mean) * (value - mean)),
        row.len(),
    ) / count;
    let inverse = 1.0 / (variance + epsilon).sqrt();
    for ((value, gain), bias) in row.iter_mut().zip(&norm.gain).zip(&norm.bias) {
        *value = (*value - mean) * inverse * gain + bias;
    }
}

/// Softmax in place.
#[inline(always)]
fn softmax(row: &mut [f32]) {
    let mut lanes = [f32::NEG_INFINITY; LANES];
    let mut chunks = row.chunks_exact(LANES);
    for chunk in &mut chunks {
        for (lane, value) in lanes.iter_mut().zip(chunk) {
            *lane = lane.max(*value);
        }
    }
    let max = chunks
        .remainder()
        .iter()
        .chain(&lanes)
        .copied()
        .fold(f32::NEG_INFINITY, f32::max);
    row.iter_mut().for_each(|value| *value = exp(*value - max));
    let inverse = 1.0 / sum(row.iter().copied(), row.len());
    row.iter_mut().for_each(|value| *value *= inverse);
}

/// Sums kept side by side in [`sum`]: a float sum in order is one long
/// chain of additions the compiler may not reorder; this many running sums
/// fill an AVX-512 register.
const LANES: usize = 16;

/// The sum of `values` (`count` of them), in [`LANES`] running sums.
#[inline(always)]
fn sum(values: impl Iterator<Item = f32>, count: usize) -> f32 {
    let mut lanes = [0.0f32; LANES];
    let mut values = values;
    for _ in 0..count / LANES {
        for lane in lanes.iter_mut() {
            *lane += values.next().unwrap_or(0.0);
        }
    }
    values.sum::<f32>() + lanes.iter().sum::<f32>()
}

/// BERT's GELU: `x · (1 + erf(x / √2)) / 2`.
#[inline(always)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// `erf` as the rational approximation `x · P(x²) / Q(x²)` on [-4, 4]
/// (erf is ±1 in `f32` beyond), with the coefficients Eigen's and XLA's
/// `erf` for `f32` use; within 5e-7 of `erf` computed in `f64` (tested).
#[inline(always)]
fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let mut p = -2.726_142_3e-10_f32;
    p = p * x2 + 2.770_681_4e-8;
    p = p * x2 - 2.101_024e-6;
    p = p * x2 - 5.692_506_4e-5;
    p = p * x2 - 7.349_906e-4;
    p = p * x2 - 2.954_600_1e-3;
    p = p * x2 - 1.609_603_3e-2;
    let mut q = -1.456_607_2e-5_f32;
    q = q * x2 - 2.133_740_6e-4;
    q = q * x2 - 1.682_827e-3;
    q = q * x2 - 7.373_329e-3;
    q = q * x2 - 1.426_474e-2;
    x * p / q
}

/// `exp` for `x <= 0` (softmax's arguments): `2^n · e^r` with
/// `x = n·ln 2 + r`, `|r| <= ln 2 / 2`, `e^r` by its Taylor series to the
/// 7th power (within 3e-7 of itself, tested); below -87 it is 0, as `f32`'s
/// smallest normal is about e^-87.
#[inline(always)]
fn exp(x: f32) -> f32 {
    let x = x.max(-87.0);
    // Rounded to the nearest integer by adding and taking away 1.5·2^23
    // (f32::round is a call on baseline x86-64; this vectorizes).
    const ROUND: f32 = 12_582_912.0;
    let shifted = x * std::f32::consts::LOG2_E + ROUND;
    let n = shifted - ROUND;
    // ln 2 in two parts (Cody and Waite), the first exact in few bits, so
    // that n·ln 2 is subtracted without losing r's low bits.
    let r = (x - n * 0.693_359_4) + n * 2.121_944_4e-4;
    let mut e = 1.0 / 5040.0;
    e = e * r + 1.0 / 720.0;
    e = e * r + 1.0 / 120.0;
    e = e * r + 1.0 / 24.0;
    e = e * r + 1.0 / 6.0;
    e = e * r + 0.5;
    e = e * r + 1.0;
    e = e * r + 1.0;
    // 2^n for n in [-126, 0]: n is in the low bits of `shifted` (its unit
    // is 1), and becomes the exponent's bits, all in integer arithmetic
    // (a float-to-integer cast checks for NaN and does not vectorize).
    let n_bits = shifted.to_bits().wrapping_sub(ROUND.to_bits());
    let scale = f32::from_bits(n_bits.wrapping_add(127) << 23);
    e * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_is_within_5e_7_of_erf_in_f64() {
        let mut worst = 0.0f32;
        for step in -600_000..=600_000 {
            let x = step as f32 * 1e-5;
            worst = worst.max((erf(x) - reference_erf(x)).abs());
        }
        assert!(worst < 5e-7, "worst {worst}");
        assert!((erf(10.0) - 1.0).abs() < 5e-7 && (erf(-10.0) + 1.0).abs() < 5e-7);
    }

    fn reference_erf(x: f32) -> f32 {
        // std has no erf: its Taylor series, summed in f64 (it converges
        // for every x; past 4.5, erf is ±1 in f32).
        let x = f64::from(x);
        if x.abs() > 4.5 {
            return x.signum() as f32;
        }
        let mut term = x;
        let mut sum = x;
        let mut n = 0.0;
        while term.abs() > 1e-17 * sum.abs().max(1e-300) || n < 5.0 {
            n += 1.0;
            term *= -x * x / n;
            sum += term / (2.0 * n + 1.0);
            if n > 400.0 {
                break;
            }
        }
        (sum * 2.0 / std::f64::consts::PI.sqrt()) as f32
    }

    #[test]
    fn exp_is_within_3e_7_of_itself_for_softmax_arguments() {
        for step in 0..=870_000 {
            let x = -(step as f32) * 1e-4;
            let expected = f64::from(x).exp();
            let got = f64::from(exp(x));
            let relative = ((got - expected) / expected).abs();
            assert!(relative < 3e-7, "exp({x}) = {got}, not {expected}");
        }
        assert_eq!(exp(-200.0), exp(-87.0));
    }

    #[test]
    fn softmax_sums_to_one_and_keeps_order() {
        let mut row = vec![1.0, 3.0, 2.0, -50.0];
        softmax(&mut row);
        assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(row[1] > row[2] && row[2] > row[0] && row[0] > row[3]);
    }

    #[test]
    fn layer_norm_centers_and_scales() {
        let norm = Norm {
            gain: vec![1.0; 4],
            bias: vec![0.0; 4],
        };
        let mut row = vec![1.0, 2.0, 3.0, 4.0];
        layer_norm(&mut row, &norm, 1e-12);
        assert!(row.iter().sum::<f32>().abs() < 1e-6);
        let variance = row.iter().map(|v| v * v).sum::<f32>() / 4.0;
        assert!((variance - 1.0).abs() < 1e-5);
    }

    const TINY: Shape = Shape {
        hidden: 8,
        heads: 2,
        intermediate: 16,
        layers: 2,
        max_positions: 16,
        vocabulary: 50,
    };

    /// A tiny checkpoint of [`TINY`]'s shape with random weights.
    fn tiny_checkpoint() -> Tensors {
        let mut seed = 7u64;
        let mut random = |count: usize| -> Vec<f32> {
            (0..count)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 40) as f32 / (1u64 << 24) as f32) - 0.5
                })
                .collect()
        };
        let mut tensors = Tensors::new();
        let mut put = |name: String, dims: Vec<usize>| {
            let count = dims.iter().product();
            tensors.insert(name, (dims, random(count)));
        };
        put("embeddings.word_embeddings.weight".into(), vec![50, 8]);
        put("embeddings.position_embeddings.weight".into(), vec![16, 8]);
        put("embeddings.token_type_embeddings.weight".into(), vec![2, 8]);
        put("embeddings.LayerNorm.weight".into(), vec![8]);
        put("embeddings.LayerNorm.bias".into(), vec![8]);
        for layer in 0..2 {
            let p = format!("encoder.layer.{layer}");
            for part in ["query", "key", "value"] {
                put(format!("{p}.attention.self.{part}.weight"), vec![8, 8]);
                put(format!("{p}.attention.self.{part}.bias"), vec![8]);
            }
            put(format!("{p}.attention.output.dense.weight"), vec![8, 8]);
            put(format!("{p}.attention.output.dense.bias"), vec![8]);
            put(format!("{p}.attention.output.LayerNorm.weight"), vec![8]);
            put(format!("{p}.attention.output.LayerNorm.bias"), vec![8]);
            put(format!("{p}.intermediate.dense.weight"), vec![16, 8]);
            put(format!("{p}.intermediate.dense.bias"), vec![16]);
            put(format!("{p}.output.dense.weight"), vec![8, 16]);
            put(format!("{p}.output.dense.bias"), vec![8]);
            put(format!("{p}.output.LayerNorm.weight"), vec![8]);
            put(format!("{p}.output.LayerNorm.bias"), vec![8]);
        }
        tensors
    }

    #[test]
    fn a_checkpoint_that_does_not_fit_the_shape_is_refused_by_name() {
        let mut missing = tiny_checkpoint();
        missing.remove("encoder.layer.1.output.dense.bias");
        let error = Bert::new(TINY, 1e-12, missing).err().unwrap();
        assert_eq!(
            error,
            "the tensor encoder.layer.1.output.dense.bias is missing"
        );

        let mut wrong = tiny_checkpoint();
        wrong.insert(
            "encoder.layer.0.intermediate.dense.weight".into(),
            (vec![8, 16], vec![0.0; 128]),
        );
        let error = Bert::new(TINY, 1e-12, wrong).err().unwrap();
        assert!(error.contains("has shape [8, 16], not [16, 8]"), "{error}");

        let uneven = Shape { heads: 3, ..TINY };
        let error = Bert::new(uneven, 1e-12, tiny_checkpoint()).err().unwrap();
        assert!(error.contains("do not divide"), "{error}");

        // `bert.`-prefixed names, as some checkpoints save them, are read.
        let prefixed: Tensors = tiny_checkpoint()
            .into_iter()
            .map(|(name, tensor)| (format!("bert.{name}"), tensor))
            .collect();
        assert!(Bert::new(TINY, 1e-12, prefixed).is_ok());
    }

    /// One text packed beside others gets the vector it gets alone:
    /// packing without padding must not leak between texts.
    #[test]
    fn a_text_packed_with_others_gets_its_vector_alone() {
        let (shape, tensors) = (TINY, tiny_checkpoint());
        let bert = Bert::new(shape, 1e-12, tensors).unwrap();
        // 3 short texts, then enough of 13 tokens for more than one tile
        // of TILE_ROWS, with a text across the tiles' border.
        let count = (TILE_ROWS / 13 + 2) as u32;
        let long: Vec<Vec<u32>> = (0..count)
            .map(|text| (0..13).map(|token| (text * 7 + token * 3) % 50).collect())
            .collect();
        let mut texts: Vec<&[u32]> = vec![&[1, 5, 9, 2], &[1, 3, 2], &[1, 40, 41, 42, 43, 44, 2]];
        texts.extend(long.iter().map(Vec::as_slice));
        assert!(texts.iter().map(|ids| ids.len()).sum::<usize>() > TILE_ROWS);
        let together = bert.mean_pooled(&texts).unwrap();
        for (text, packed) in texts.iter().zip(&together) {
            let alone = bert.mean_pooled(&[text]).unwrap();
            for (a, b) in alone[0].iter().zip(packed) {
                assert!((a - b).abs() < 1e-5, "{a} vs {b}");
            }
        }
        assert!(
            bert.mean_pooled(&[&[60]])
                .unwrap_err()
                .contains("past the vocabulary")
        );
        assert!(
            bert.mean_pooled(&[&[1; 17]])
                .unwrap_err()
                .contains("longer than")
        );
        assert!(bert.mean_pooled(&[]).unwrap().is_empty());
    }
}
