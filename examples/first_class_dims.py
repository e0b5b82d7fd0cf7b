"""First-class dimensions (``functorch.dim``): the design doc's examples, with exact shapes.

Every return annotation below is what tensorshape infers for the body (see
docs/first-class-dims.md).  Two examples are adapted so that they run: the
relative positional embedding sets ``heads.size`` (the doc leaves both members
of its dim pack unsized) and uses ``index_bias`` where the doc says ``bias``.
"""

import torch
from functorch.dim import dims, softmax
from jaxtyping import Float, Int
from torch import Tensor, where


# -- einsum-style products -----------------------------------------------------------------
def mm(A: Float[Tensor, "n k"], B: Float[Tensor, "k m"]) -> Float[Tensor, "n m"]:
    i, j, k = dims(3)
    r = (A[i, k] * B[k, j]).sum(k)
    return r.order(i, j)


def bmm(A: Float[Tensor, "b n k"], B: Float[Tensor, "b k m"]) -> Float[Tensor, "b n m"]:
    i = dims(1)  # a different dim from the `i` inside mm
    return mm(A[i], B[i]).order(i)


def gram_matrix(y: Float[Tensor, "b c h w"]) -> Float[Tensor, "b c c"]:
    b, c, c2, h, w = dims()
    r = (y[b, c, h, w] * y[b, c2, h, w]).sum((h, w))
    r = r / (h.size * w.size)
    return r.order(b, c, c2)


def attention(K: Float[Tensor, "b c k"], Q: Float[Tensor, "b c q"], V: Float[Tensor, "b c k"]) -> Float[Tensor, "b 2*c q"]:
    batch, channel, key, query = dims(4)
    k = K[batch, channel, key]
    q = Q[batch, channel, query]
    v = V[batch, channel, key]
    a = (k * q).sum(channel)  # matrix multiply
    a = softmax(a * (channel.size**-0.5), dim=key)
    r = (v * a).sum(key)  # matrix multiply
    return torch.cat((r.order(batch, channel, query), Q), dim=1)


def multiheadattention(
    q: Float[Tensor, "b s d"],
    k: Float[Tensor, "b t d"],
    v: Float[Tensor, "b t d"],
    num_attention_heads: int,
    dropout_prob: float,
    use_positional_embedding: bool = False,
) -> Float[Tensor, "b s d"]:
    assert q.size(2) % num_attention_heads == 0  # features is d // heads, exactly
    batch, query_sequence, key_sequence, heads, features = dims(5)
    heads.size = num_attention_heads
    # binding dimensions, and unflattening the heads from the feature dimension
    q = q[batch, query_sequence, [heads, features]]
    k = k[batch, key_sequence, [heads, features]]
    v = v[batch, key_sequence, [heads, features]]
    attention_scores = (q * k).sum(features) * (features.size**-0.5)
    attention_probs = softmax(attention_scores, dim=key_sequence)
    attention_probs = torch.nn.functional.dropout(attention_probs, p=dropout_prob)
    context_layer = (attention_probs * v).sum(key_sequence)
    # flatten heads back into features
    return context_layer.order(batch, query_sequence, [heads, features])


# -- rearranging ---------------------------------------------------------------------------
def pixel_shuffle(img: Float[Tensor, "b c h w"]) -> Float[Tensor, "b c//4 2*h 2*w"]:
    upscale_factor = 2
    h2, w2, c, b, h, w = dims(6)
    h2.size = w2.size = upscale_factor
    return img[b, (c, h2, w2), h, w].order(b, c, (h, h2), (w, w2))


def split_and_flatten(A: Float[Tensor, "6 4"]) -> Float[Tensor, "3 8"]:
    i, j, k = dims(3)
    j.size = 2
    a = A[(i, j), k]  # split dim 0 into i, j: i is 3
    return a.order(i, (j, k))  # flatten j and k


def transpose(B: Float[Tensor, "x y z"]) -> Float[Tensor, "y x z"]:
    i, j = dims(2)
    return B[i, j].order(j, i)


def add_bias(input_positional: Float[Tensor, "128 32"], bias_positional: Float[Tensor, "32"]) -> Float[Tensor, "32 128"]:
    batch, channel = dims(2)
    result = input_positional[batch, channel] + bias_positional[channel]
    return result.order(channel, batch)


def avg_pixel_color(input_positional: Float[Tensor, "b c h w"]) -> Float[Tensor, "b c"]:
    batch, channel, width, height = dims(4)
    avg = input_positional[batch, channel, width, height].mean((width, height))
    return avg.order(batch, channel)


# -- batching ------------------------------------------------------------------------------
def model(feature_vec, weights):
    assert feature_vec.dim() == 1
    return feature_vec.dot(weights).relu()


def batched_model(examples: Float[Tensor, "b f"], weights: Float[Tensor, "f"]) -> Float[Tensor, "b"]:
    batch = dims(1)
    return model(examples[batch], weights).order(batch)


# -- indexing ------------------------------------------------------------------------------
def embedding_lookup(embeddings: Float[Tensor, "v f"], words: Int[Tensor, "s"]) -> Float[Tensor, "s f"]:
    sequence, features = dims(2)
    return embeddings[words[sequence], features].order(sequence, features)


def embedding_bag(input: Int[Tensor, "b s"], embedding_weights: Float[Tensor, "e f"]) -> Float[Tensor, "b f"]:
    batch, sequence, features = dims(3)
    r = embedding_weights[input[batch, sequence], features].sum(sequence)
    return r.order(batch, features)


def relative_positional_embedding(
    q: Float[Tensor, "b s d"], k: Float[Tensor, "b s d"], distance_embedding_weight: Float[Tensor, "e f"]
) -> Float[Tensor, "b 4 s s"]:
    batch, query_sequence, key_sequence, heads, features = dims(5)
    heads.size = 4
    q = q[batch, query_sequence, [heads, features]]
    k = k[batch, key_sequence, [heads, features]]
    distance = query_sequence - key_sequence
    n_embeddings = distance_embedding_weight.size(0)
    index_bias = n_embeddings // 2
    # indexing with dims
    positional_embedding = distance_embedding_weight[distance + index_bias, features]
    # matrix multiplies with dims
    relative_position_scores_query = (q * positional_embedding).sum(features)
    relative_position_scores_key = (k * positional_embedding).sum(features)
    scores = relative_position_scores_query + relative_position_scores_key
    return scores.order(batch, heads, key_sequence, query_sequence)


def triu_of(A: Float[Tensor, "n m"]) -> Float[Tensor, "n m"]:
    i, j = dims()
    a = A[i, j]
    return where(i <= j, a, 0).order(i, j)


# -- tensor puzzlers -----------------------------------------------------------------------
def outer(a: Float[Tensor, "n"], b: Float[Tensor, "m"]) -> Float[Tensor, "n m"]:
    i, j = dims(2)
    return (a[i] * b[j]).order(i, j)


def diag(a: Float[Tensor, "n n"]) -> Float[Tensor, "n"]:
    i = dims(1)
    return a[i, i].order(i)


def eye(a: Float[Tensor, "n"]) -> Float[Tensor, "n n"]:
    i, j = dims(sizes=[a.size(0), a.size(0)])
    return where(i == j, 1, 0).order(i, j)


def triu(a: Float[Tensor, "n"]) -> Float[Tensor, "n n"]:
    i, j = dims(sizes=[a.size(0), a.size(0)])
    return where(i <= j, 1, 0).order(i, j)


def diff(a: Float[Tensor, "n"]) -> Float[Tensor, "n"]:
    i = dims(1)
    d = a[i] - a[i - 1]
    return where(i - 1 >= 0, d, a[i]).order(i)


def vstack(a: Float[Tensor, "n"], b: Float[Tensor, "n"]) -> Float[Tensor, "2 n"]:
    v, i = dims(sizes=[2, None])
    return where(v == 0, a[i], b[i]).order(v, i)


def roll(a: Float[Tensor, "n"]) -> Float[Tensor, "n"]:
    i = dims(sizes=[a.size(0)])
    return a[where(i + 1 < i.size, i + 1, 0)].order(i)


def flip(a: Float[Tensor, "n"]) -> Float[Tensor, "n"]:
    i = dims(sizes=[a.size(0)])
    return a[i.size - i - 1].order(i)


def sequence_mask(values: Float[Tensor, "b n"], length: Int[Tensor, "b"]) -> Float[Tensor, "b n"]:
    j, i = dims()
    v = values[i, j]
    return where(j < length[i], v, 0).order(i, j)


def demo() -> None:
    assert mm(torch.rand(3, 4), torch.rand(4, 5)).shape == (3, 5)
    assert bmm(torch.rand(2, 3, 4), torch.rand(2, 4, 5)).shape == (2, 3, 5)
    assert gram_matrix(torch.rand(1, 2, 3, 4)).shape == (1, 2, 2)
    assert attention(torch.rand(2, 3, 4), torch.rand(2, 3, 5), torch.rand(2, 3, 4)).shape == (2, 6, 5)
    x = torch.rand(2, 6, 8)
    assert multiheadattention(x, torch.rand(2, 7, 8), torch.rand(2, 7, 8), 4, 0.1).shape == (2, 6, 8)
    assert pixel_shuffle(torch.rand(2, 12, 5, 7)).shape == (2, 3, 10, 14)
    assert split_and_flatten(torch.rand(6, 4)).shape == (3, 8)
    assert transpose(torch.rand(3, 4, 5)).shape == (4, 3, 5)
    assert add_bias(torch.rand(128, 32), torch.rand(32)).shape == (32, 128)
    assert avg_pixel_color(torch.rand(2, 3, 8, 8)).shape == (2, 3)
    assert batched_model(torch.randn(3, 5), torch.randn(5)).shape == (3,)
    assert embedding_lookup(torch.rand(8, 128), torch.tensor([5, 4, 0])).shape == (3, 128)
    assert embedding_bag(torch.tensor([[1, 0, 4, 3]]), torch.rand(5, 2)).shape == (1, 2)
    qk = torch.rand(2, 6, 8)
    assert relative_positional_embedding(qk, qk, torch.rand(13, 2)).shape == (2, 4, 6, 6)
    assert triu_of(torch.rand(3, 4)).shape == (3, 4)
    assert outer(torch.rand(3), torch.rand(4)).shape == (3, 4)
    assert diag(torch.rand(3, 3)).shape == (3,)
    assert eye(torch.rand(4)).shape == (4, 4)
    assert triu(torch.rand(4)).shape == (4, 4)
    assert diff(torch.rand(5)).shape == (5,)
    assert vstack(torch.rand(5), torch.rand(5)).shape == (2, 5)
    assert roll(torch.rand(5)).shape == (5,)
    assert flip(torch.rand(5)).shape == (5,)
    assert sequence_mask(torch.rand(3, 6), torch.tensor([1, 4, 6])).shape == (3, 6)


if __name__ == "__main__":
    demo()
