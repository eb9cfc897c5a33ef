"""MLA decode (DeepSeek-V2/V3 multi-head latent attention) for serving
engines: ``TritonMLAImpl`` has the upstream TRITON_MLA backend's constructor
and its refusals, and ``forward_decode`` takes any DLPack arrays (torch,
CuPy, JAX; NumPy in the interpreter) zero-copy on their device.
``MLADecodeAdapter`` has the shape of an engine's MLA decode entry point.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional, Sequence, Tuple, Union

from . import _tilemla
from ._arrays import current_stream, empty_like_framework, float32_of


@dataclasses.dataclass
class Options:
    """tilemla's own settings (TritonMLAOptions in C++)."""

    max_batch: int = 256          # the largest batch; sizes the workspace
    max_query_len: int = 1        # query tokens per request (MTP) at most
    split_policy: str = "fixed4"  # "fixed4" (the seed's), "auto",
    #                               "batch_invariant"
    lse_dtype: str = "f32"        # "f32", or "query": q's dtype, as the seed
    device: int = 0               # CUDA ordinal (-1: validate only)
    check_inputs: bool = False    # validate page ids and lengths on the GPU
    device_schedule: str = "default"  # where "auto" schedules on the GPU:
    #                                   "default" (where faster), "off",
    #                                   "always"


_MLA_ARGS = ("kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
             "v_head_dim")


def _kv_scale(kv_scale):
    """The native call's (kv_scale, kv_scale_tensor) for a float, an array
    or None."""
    if kv_scale is None:
        return None, None
    if isinstance(kv_scale, (int, float)):
        return float(kv_scale), None
    return None, kv_scale


class TritonMLAImpl:
    """The seed's TritonMLAImpl: (num_heads, head_size, scale, num_kv_heads,
    alibi_slopes, sliding_window, kv_cache_dtype, logits_soft_cap,
    attn_type, kv_sharing_target_layer_name, **mla_args). mla_args:
    kv_lora_rank (512), qk_rope_head_dim (64), qk_nope_head_dim (128),
    v_head_dim (128); others an engine passes (kv_b_proj, ...) are ignored.
    kv_cache_dtype: "auto", "fp8" / "fp8_e4m3" (e4m3 codes with a scale per
    call) or "fp8_ds_mla" (DeepSeek-V3.2's 656-byte tokens)."""

    can_return_lse_for_decode = True

    def __init__(self, num_heads: int, head_size: int, scale: float,
                 num_kv_heads: int,
                 alibi_slopes: Optional[Sequence[float]] = None,
                 sliding_window: Optional[int] = None,
                 kv_cache_dtype: str = "auto",
                 logits_soft_cap: Optional[float] = None,
                 attn_type: Any = "decoder",
                 kv_sharing_target_layer_name: Optional[str] = None, *,
                 options: Optional[Options] = None, **mla_args: Any) -> None:
        # The seed's refusals, in its order (Python truthiness).
        if any([alibi_slopes, sliding_window, logits_soft_cap]):
            raise NotImplementedError(
                "TritonMLAImpl does not support one of the following: "
                "alibi_slopes, sliding_window, logits_soft_cap")
        if str(attn_type).split(".")[-1].lower() != "decoder":
            raise NotImplementedError(
                "Encoder self-attention and encoder/decoder cross-attention "
                "are not implemented for TritonMLAImpl")
        options = options or Options()
        shape = {"kv_lora_rank": 512, "qk_rope_head_dim": 64,
                 "qk_nope_head_dim": 128, "v_head_dim": 128}
        shape.update({k: int(v) for k, v in mla_args.items() if k in _MLA_ARGS})
        if options.lse_dtype not in ("f32", "query"):
            raise _tilemla.Error(f"options.lse_dtype: expected \"f32\" or "
                                 f"\"query\", got {options.lse_dtype!r}")
        self.num_heads = int(num_heads)
        self.kv_lora_rank = shape["kv_lora_rank"]
        self.kv_cache_dtype = kv_cache_dtype
        self.options = options
        self._native = _tilemla.MlaImpl(
            num_heads=int(num_heads), head_size=int(head_size),
            scale=float(scale), num_kv_heads=int(num_kv_heads),
            kv_cache_dtype=kv_cache_dtype, **shape,
            max_batch=options.max_batch,
            max_query_len=options.max_query_len,
            split_policy=options.split_policy,
            lse_in_query_dtype=options.lse_dtype == "query",
            device=options.device, check_inputs=options.check_inputs,
            device_schedule=options.device_schedule)

    def _outputs(self, q, o, lse, stream):
        """o and lse, those not given allocated like q (on `stream` when
        one was given)."""
        rows = tuple(q.shape[:-1])  # [B, H] or [B, s_q, H]
        if o is None:
            o = empty_like_framework(q, rows + (self.kv_lora_rank,),
                                     stream=stream)
        if lse is None:
            lse = empty_like_framework(
                q, rows, None if self.options.lse_dtype == "query"
                else float32_of(q), stream=stream)
        return o, lse

    def _arguments(self, q, kv_cache, block_table, seq_lens, max_seq_len,
                   o, lse, kv_scale):
        """precompile's native arguments; outputs allocated like q."""
        q_pe = None
        if isinstance(q, (tuple, list)):
            q, q_pe = q
        o, lse = self._outputs(q, o, lse, None)
        scale_value, scale_tensor = _kv_scale(kv_scale)
        return (q, q_pe, kv_cache, block_table, seq_lens,
                -1 if max_seq_len is None else int(max_seq_len), o, lse,
                scale_value, scale_tensor)

    def forward_decode(self, q: Union[Any, Tuple[Any, Any]], kv_cache: Any,
                       block_table: Any, seq_lens: Any,
                       max_seq_len: Optional[int] = None, o: Any = None,
                       lse: Any = None, stream: Any = None, *,
                       kv_scale: Union[float, Any, None] = None,
                       schedule: Any = None) -> Tuple[Any, Any]:
        """Decode attention; returns (o, lse).

        q: [B, H, R + P], or the pair (q_nope [B, H, R], q_pe [B, H, P]), or
        with several query tokens [B, s_q, H, ...]; kv_cache [pages,
        page_size, R + P] (or [pages, page_size, 1, R + P]); block_table
        [B, max_pages] int32; seq_lens [B] int32; max_seq_len: the batch's
        longest length if the host knows it (split_policy "auto" needs it).
        o and lse are allocated like q when None. kv_scale (fp8 caches): a
        float, or a one-element float32 array on the device that every
        replay of a captured graph reads anew. stream: a CUDA stream (an
        int handle or an object with .cuda_stream); None: torch's current
        stream for torch tensors. schedule: this step's, from
        schedule_decode on these seq_lens (every layer's call reads it).
        Nothing synchronizes the host."""
        # Every call of every layer comes through here: the common case
        # (outputs given) reads each argument once.
        q_pe = None
        if isinstance(q, (tuple, list)):
            q, q_pe = q
        if type(stream) is int:  # the engine's handle: nothing to look up
            handle = stream
        else:
            handle = current_stream((q, kv_cache, o), stream)
        if o is None or lse is None:
            o, lse = self._outputs(q, o, lse,
                                   None if stream is None else handle)
        scale_value = scale_tensor = None
        if kv_scale is not None:
            scale_value, scale_tensor = _kv_scale(kv_scale)
        self._native.forward_decode(
            q, q_pe, kv_cache, block_table, seq_lens,
            -1 if max_seq_len is None else int(max_seq_len), o, lse, handle,
            scale_value, scale_tensor, schedule)
        return o, lse

    def precompile(self, q: Union[Any, Tuple[Any, Any]], kv_cache: Any,
                   block_table: Any, seq_lens: Any,
                   max_seq_len: Optional[int] = None, o: Any = None,
                   lse: Any = None, *,
                   kv_scale: Union[float, Any, None] = None,
                   schedule: Any = None) -> int:
        """Compiles every kernel set calls like this one can choose (any
        batch up to q's, any split count), before a CUDA graph is captured;
        returns how many sets were prepared."""
        args = self._arguments(q, kv_cache, block_table, seq_lens,
                               max_seq_len, o, lse, kv_scale)
        return self._native.precompile(*args, schedule)

    def new_schedule(self, query_len: int = 1) -> Any:
        """A work schedule for one decode step of up to max_batch requests
        of `query_len` query tokens, allocated once (a CUDA graph can then
        capture the steps that fill it)."""
        return self._native.new_schedule(query_len)

    def schedule_decode(self, seq_lens: Any, schedule: Any,
                        stream: Any = None) -> None:
        """Fills `schedule` from `seq_lens` on `stream` (the step's calls
        then pass it as forward_decode's schedule=). Never synchronizes."""
        self._native.schedule_decode(seq_lens, schedule,
                                     current_stream([seq_lens], stream))


class MLADecodeAdapter:
    """An engine's MLA decode entry point over TritonMLAImpl:
    ``forward_mqa(q, kv_c_and_k_pe_cache, attn_metadata, layer)`` with q a
    tensor [B, H, R + P] or the pair (q_nope, q_pe), the paged latent cache,
    metadata whose ``.decode`` holds ``block_table`` and ``seq_lens`` (and
    optionally ``max_seq_len``), and a layer whose ``_k_scale`` (an fp8
    cache's scale, a one-element tensor) is read when the cache is fp8.
    Returns (o, lse) as the upstream TRITON_MLA impl's _forward_decode."""

    def __init__(self, impl: TritonMLAImpl) -> None:
        self.impl = impl

    def forward_mqa(self, q: Union[Any, Tuple[Any, Any]],
                    kv_c_and_k_pe_cache: Any, attn_metadata: Any,
                    layer: Any = None) -> Tuple[Any, Any]:
        decode = getattr(attn_metadata, "decode", attn_metadata)
        kv_scale = None
        if self.impl.kv_cache_dtype in ("fp8", "fp8_e4m3"):
            kv_scale = getattr(layer, "_k_scale", None)
            if kv_scale is None:
                raise _tilemla.Error("layer._k_scale: an fp8 cache needs the "
                                     "layer's scale")
        return self.impl.forward_decode(
            q, kv_c_and_k_pe_cache, decode.block_table, decode.seq_lens,
            getattr(decode, "max_seq_len", None), kv_scale=kv_scale)
