"""What ran in each counted thread of the prior sample, for the ``workload`` intake rows.

The sample's tables (``cases/dev/PRIOR_SAMPLE.md``, the notes' "Prior-sample candidates") say
what ran in their symptom column, in our words, but have no column for it; this is that column,
read from those words and nothing else (no thread was opened again). ``inference`` is an
inference job whose batch the symptom does not state: it counts half to small-batch and half
to large-batch. A thread whose symptom does not say what ran is not listed (it still counts
for the priors).
"""

from __future__ import annotations

GH = "https://github.com/"

WORKLOADS: dict[str, str] = {
    # PRIOR_SAMPLE.md (counted and diagnosis-only tables)
    GH + "open-mmlab/mmpretrain/issues/350": "training",  # dist training, loader cannot keep up
    GH + "pytorch/pytorch/issues/71855": "training",  # HF CLM training, samples/s
    GH + "pytorch/pytorch/issues/180500": "training",  # ResNet50 DDP
    GH + "NVIDIA/nccl/issues/1580": "training",  # "so training is slow"
    GH + "horovod/horovod/issues/288": "training",  # Horovod TF (CNN training) benchmarks
    GH + "NVIDIA/nccl/issues/1403": "benchmark",  # all-reduce busbw
    GH + "Alpha-VLLM/Lumina-DiMOO/issues/22": "inference",  # multi-GPU evaluation
    GH + "huggingface/accelerate/issues/71": "training",  # the nlp (training) example
    GH + "mosaicml/llm-foundry/issues/336": "training",  # 2-node training
    GH + "apache/mxnet/issues/3228": "training",  # training throughput
    GH + "NVIDIA/nccl/issues/307": "benchmark",  # GB/s between nodes
    GH + "NVIDIA/nccl/issues/325": "benchmark",  # node pairs' GB/s
    GH + "tensorflow/tensorflow/issues/39207": "training",  # distributed TF scaling
    GH + "NVIDIA/nccl/issues/1997": "benchmark",  # collectives slower
    GH + "sgl-project/sglang/issues/7654": "inference",  # multi-node serving
    GH + "horovod/horovod/issues/476": "training",  # 2-node Horovod scaling
    GH + "sgl-project/sglang/issues/5808": "inference",  # small LLM on several A10s
    GH + "NERSC/podman-hpc/issues/136": "benchmark",  # NCCL bandwidth at small sizes
    GH + "pytorch/torchtitan/issues/4038": "training",  # RL trainer and generator
    GH + "NVIDIA-NeMo/Speech/issues/8141": "training",  # ASR training
    GH + "NVIDIA/nccl/issues/471": "benchmark",  # multi-node bandwidth
    GH + "vllm-project/vllm/issues/689": "inference",  # TP=2 against TP=1
    GH + "vllm-project/vllm/issues/1873": "inference",  # TP=4 no gain
    GH + "NVIDIA/nccl/issues/1639": "benchmark",  # all-reduce busbw
    GH + "pytorch/examples/issues/387": "training",  # ImageNet training
    # notes-new-cases-a.md
    GH + "vllm-project/vllm/issues/13247": "inference-large-batch",  # TPOT at batch > 20
    GH + "ollama/ollama/issues/9885": "inference-small-batch",
    GH + "ollama/ollama/issues/9068": "inference-small-batch",
    GH + "ollama/ollama/issues/8845": "inference-small-batch",
    GH + "ollama/ollama/issues/9704": "inference-small-batch",
    GH + "tkipf/pygcn/issues/40": "training",
    GH + "ilnehc96/HKU-DASC7606-A1/issues/9": "training",
    GH + "abetlen/llama-cpp-python/issues/1123": "inference-small-batch",
    GH + "NVlabs/Deep_Object_Pose/issues/88": "training",
    GH + "YijinHuang/pytorch-DR/issues/1": "training",
    GH + "open-mmlab/mmocr/issues/698": "training",  # data_time per iteration
    GH + "rpautrat/SuperPoint/issues/77": "training",
    GH + "linkedin/Liger-Kernel/issues/323": "benchmark",  # fused kernels at batch 1-4
    GH + "scaleapi/llm-engine/pull/851": "inference",  # endpoints decoding
    GH + "openvdb/fvdb-reality-capture/pull/144": "training",
    GH + "VainF/DeepLabV3Plus-Pytorch/issues/20": "training",
    GH + "ggml-org/llama.cpp/issues/4055": "inference-small-batch",  # row split, llama.cpp
    # notes-new-cases-b.md
    GH + "ashalliants/ninfer-3090/pull/72": "inference-small-batch",  # decode
    GH + "Tanguille/cluster/pull/4137": "inference",  # prefill and decode
    GH + "bradrlaw/ai-server/pull/32": "inference",  # SDXL image generation
    GH + "NVIDIA/nccl-tests/issues/115": "benchmark",
    GH + "NVIDIA/nccl-tests/issues/293": "benchmark",
    GH + "apache/mxnet/issues/872": "training",  # 4 K80 (image classification)
    GH + "apache/mxnet/issues/7813": "training",  # AlexNet
    # notes-new-cases-c.md
    GH + "chunbaobao/Deep-JSCC-PyTorch/issues/11": "training",
    GH + "apache/mxnet/issues/858": "training",  # AlexNet
    GH + "apache/mxnet/issues/990": "training",  # samples/s on 16 K80
}
