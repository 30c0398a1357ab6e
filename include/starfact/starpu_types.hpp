// The two StarPU types the public API names, declared as StarPU declares them, so that the public headers need no
// <starpu.h>: a tile is a starpu_data_handle_t (TileMatrix::tile), a task a starpu_task (Sequence::submit). Code
// that calls StarPU includes <starpu.h> itself; these declarations are identical to its own.
#pragma once

struct _starpu_data_state;
typedef struct _starpu_data_state* starpu_data_handle_t;
struct starpu_task;
