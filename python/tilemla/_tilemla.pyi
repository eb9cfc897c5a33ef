"""Type stubs of tilemla's native layer (python/src/Module.cpp)."""

from typing import Any, Optional, Sequence

class Error(RuntimeError): ...

def interpreter_mode() -> bool: ...
def _describe_array(array: Any, writable: bool = False,
                    torch_direct: bool = True) -> Optional[tuple]: ...

ARG_POINTER: int
ARG_I32: int
ARG_I64: int
ARG_F32: int
ARG_BOOL: int
ARG_TENSOR: int
ARG_TENSOR_DESC: int

class Schedule: ...

class MlaImpl:
    def __init__(self, num_heads: int, head_size: int, scale: float,
                 num_kv_heads: int, kv_cache_dtype: str, kv_lora_rank: int,
                 qk_rope_head_dim: int, qk_nope_head_dim: int,
                 v_head_dim: int, max_batch: int, max_query_len: int,
                 split_policy: str, lse_in_query_dtype: bool, device: int,
                 check_inputs: bool, device_schedule: str) -> None: ...
    def new_schedule(self, query_len: int) -> Schedule: ...
    def schedule_decode(self, seq_lens: Any, schedule: Schedule,
                        stream: int) -> None: ...
    def forward_decode(self, q: Any, q_pe: Optional[Any], kv_cache: Any,
                       block_table: Any, seq_lens: Any, max_seq_len: int,
                       o: Any, lse: Optional[Any], stream: int,
                       kv_scale: Optional[float],
                       kv_scale_tensor: Optional[Any],
                       schedule: Optional[Schedule]) -> None: ...
    def _time_c_calls(self, q: Any, q_pe: Optional[Any], kv_cache: Any,
                      block_table: Any, seq_lens: Any, max_seq_len: int,
                      o: Any, lse: Optional[Any], stream: int,
                      count: int) -> list[int]: ...
    def precompile(self, q: Any, q_pe: Optional[Any], kv_cache: Any,
                   block_table: Any, seq_lens: Any, max_seq_len: int, o: Any,
                   lse: Optional[Any], kv_scale: Optional[float],
                   kv_scale_tensor: Optional[Any],
                   schedule: Optional[Schedule]) -> int: ...

class Kernel:
    def __init__(self, path: str, source: Optional[str],
                 constexprs: Sequence[tuple[str, str]],
                 num_warps: int) -> None: ...
    def parameter_types(self) -> list[str]: ...
    def launch(self, grid: tuple[int, int, int], kinds: Sequence[int],
               values: Sequence[Any], stream: int) -> None: ...
    def emit(self, stage: str, arch: Optional[str]) -> str: ...
