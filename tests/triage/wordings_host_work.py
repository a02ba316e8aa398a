"""A fourth round of public A/B wordings, about host-side work cut or moved onto the GPU (the
``host-work`` rule) and its near neighbours, collected and labelled by a reader who had not seen
the rule; sources and searches in cases/dev/notes-fresh-wordings-4.md. The rule's first version
read 1 of the 15 host-work wordings; the patterns were widened after reading them (EVALUATIONS
change 188), so these are no longer a blind test of it."""

from __future__ import annotations

from tests.triage.wording_case import case

HOST_WORK = [
    # https://github.com/pytorch/vision/issues/7412
    case(
        "Doing 'nms_kernel' computation completely on GPU to avoid data-transfers and poor GPU "
        "utilization.",
        "host-work",
    ),
    # https://github.com/endernewton/tf-faster-rcnn/issues/357
    case("when using GPU nms instead of CPU nms during training process", "host-work"),
    # https://github.com/sgl-project/sglang/pull/15822
    case("the type conversion and tensor multiplication is moved from cpu to gpu", "host-work"),
    # https://github.com/kaiko-ai/eva/pull/683
    case(
        "Therefore the new default is to use the same device as for training for the metrics "
        "calculation.",
        "host-work",
        misread="unread",
    ),
    # https://github.com/apache/mxnet/issues/1009
    case(
        "In the process I refactored FeedForward model to directly send GPU output to metric "
        "without copying to cpu.",
        "host-work",
        misread="unread",
    ),
    # https://github.com/huggingface/sentence-transformers/pull/214
    case(
        "I have rewritten the tokenization for WordPiece-based models to make them use the "
        "Fast versions of Huggingface tokenizers (the Fast versions are implemented in Rust "
        "rather than pure Python)",
        "host-work",
    ),
    # https://github.com/QData/TextAttack/pull/70
    case(
        "When I ran `textattack` with the faster tokenizer, I did see some speedup.",
        "host-work",
    ),
    # https://github.com/NVIDIA/TensorRT-LLM/pull/13116
    case(
        "Cached key prefix in `get_cache_key()` (avoids recomputing `__class__.__name__` + "
        "`str(unique_id())` per call)",
        "host-work",
    ),
    # https://github.com/facebookexperimental/triton/pull/1645
    case(
        "This diff introduces `AutotuneCacheProxy` — a PEP 590 vectorcall C object that "
        "replaces the Python dispatch path in steady state.",
        "host-work",
    ),
    # https://github.com/pytorch/helion/pull/1557
    case(
        "Defer some initialization (random seed logging, `AutotuneMetrics` construction...) in "
        "`BaseSearch` into a new `_prepare()` method that runs lazily",
        "host-work",
    ),
    # https://github.com/flagos-ai/FlagGems/pull/4827
    case("Cache heuristics_for_tile_size in the pointwise_dynamic hot path", "host-work"),
    # https://github.com/ROCm/FlyDSL/pull/220
    case(
        "Add `_get_func_exe()`: caches the `CFUNCTYPE` wrapper after the first `raw_lookup()`, "
        "avoiding repeated symbol resolution and ctypes type construction.",
        "host-work",
    ),
    # https://github.com/Theano/libgpuarray/issues/68
    case(
        "The workaround I implemented was to add another layer of caching around `elemwise1`, "
        "`elemwise2`, and `reduce1` that returns a cached `ElemwiseKernel`/`ReductionKernel` "
        "object if everything (context, operation, argument/result types) matches.",
        "host-work",
        misread="unread",
    ),
    # https://github.com/vllm-project/vllm/pull/46422
    case(
        "This sets `detokenize=False` on the internal per-step `SamplingParams` in "
        "`vllm/entrypoints/generate/beam_search/online.py`.",
        "host-work",
    ),
    # https://github.com/kcheng1021/GaussianPro/pull/49
    case(
        "This PR fixes this issue by creating them directly on the GPU, lowering CPU usage and "
        "thereby improving training speed.",
        "host-work",
    ),
    # https://github.com/meta-pytorch/torchtune/pull/522
    case(
        "To optimize training speed, we move the loss.item() operation into log_every_n_steps "
        "block to avoid cudaStreamSynchronize in every step",
        "host-sync",
    ),
    # https://github.com/constantinpape/torch-em/pull/357
    case(
        "This PR adds `non_blocking=True` to tensor pins to `cuda` to enable asynchronous "
        "copies of objects, leading to a minor speed up.",
        "host-sync",
    ),
    # https://github.com/sthalles/PyTorch-BYOL/pull/17
    case(
        "which moves the augmentations and data loading operations to the GPU and provides a "
        "speedup of about 5x",
        "data-pipeline",
    ),
    # https://github.com/roboflow/inference/pull/941
    case(
        "I modify the preprocessing pipeline to enable running operations such as resize and "
        "pad on GPU instead of CPU by using pytorch instead of opencv to power them.",
        "data-pipeline",
    ),
    # https://github.com/janhq/jan/pull/5310
    case(
        "For now Jan will just forward a high NGL number in this case.",
        "gpu-offload",
        misread="unread",
    ),
    # https://github.com/pytorch/executorch/pull/18809
    case(
        "Replays the captured graph on all subsequent decode calls, eliminating per-step "
        "kernel launch overhead",
        "cuda-graphs",
        misread="unread",
    ),
    # https://github.com/tonyd2wild/GLM-5.3-Flash-NVFP4-1M-KV-4x-DGX-Spark/pull/5
    case("so `--enforce-eager` can be dropped to enable CUDA graphs", "cuda-graphs"),
    # https://github.com/pytorch/torchtitan/pull/4031
    case(
        "Add a minimal `launcher.env` config field  and, by default, cap threads to "
        "cores/num_local_procs.",
        "host-threads",
        misread="unread",
    ),
    # https://github.com/wandb/wandb/issues/8666
    case(
        "Removing `wandb.log` resolves this problem and keeps the steps/sec constant at ~40it/s.",
        None,
    ),
    # https://github.com/m2lines/Samudra/issues/45
    case(
        "Record inference data in wandb every k steps (specified in config) instead of model "
        "step to speed up inference.",
        None,
    ),
]
