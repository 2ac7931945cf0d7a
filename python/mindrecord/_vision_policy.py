"""Augmentation policies and batch ops of mindrecord.vision:
RandomSelectSubpolicy, UniformAugment, AutoAugment, RandAugment,
TrivialAugmentWide, MixUpBatch, MixUp, CutMixBatch (MindSpore's parameters,
defaults and checks).

Thread safety: op objects are immutable values.
"""
from mindrecord._ops_base import (TensorOperation, check_fill, check_float, check_int, check_prob, check_transforms,
                                  to_specs)
from mindrecord._vision_enums import AutoAugmentPolicy, ImageBatchFormat, Inter, choice, interp


class RandomSelectSubpolicy(TensorOperation):
    """`policy` is a list of sub-policies, each a list of (op, prob) tuples:
    one sub-policy is chosen at random, then each of its ops is applied with
    its probability, in order. Ops may be mindrecord ops or Python callables."""

    def __init__(self, policy: list) -> None:
        op = "RandomSelectSubpolicy"
        if not isinstance(policy, (list, tuple)) or not policy:
            raise ValueError("%s: policy must be a non-empty list of sub-policies" % op)
        specs = []
        for sub in policy:
            if not isinstance(sub, (list, tuple)) or not sub:
                raise ValueError("%s: each sub-policy must be a non-empty list of (op, prob) tuples, got %r"
                                 % (op, sub))
            steps = []
            for step in sub:
                if not isinstance(step, (list, tuple)) or len(step) != 2:
                    raise ValueError("%s: each step must be an (op, prob) tuple, got %r" % (op, step))
                transform, prob = step
                steps.append({"transform": to_specs(transform)[0], "prob": check_prob(prob, op)})
            specs.append(steps)
        super().__init__(op, policy=specs)
        self.policy = policy


class UniformAugment(TensorOperation):
    """Picks num_ops of `transforms` uniformly at random (without
    replacement, kept in list order), then applies each picked one with
    probability 1/2, as MindSpore's kernel does. Transforms may be mindrecord
    ops or Python callables; each must give what it takes."""

    def __init__(self, transforms: list, num_ops: int = 2) -> None:
        op = "UniformAugment"
        transforms = check_transforms(transforms, op)
        for i, t in enumerate(transforms):
            if not isinstance(t, TensorOperation) and not callable(t):
                raise TypeError("%s: transforms[%d] must be a mindrecord op or a Python callable, got %r" % (op, i, t))
        num_ops = check_int(num_ops, op, "num_ops", 1)
        if num_ops > len(transforms):
            raise ValueError("%s: num_ops must not exceed the number of transforms (%d), got %d"
                             % (op, len(transforms), num_ops))
        super().__init__(op, transforms=to_specs(transforms), num_ops=num_ops)
        self.transforms = transforms
        self.num_ops = num_ops


class AutoAugment(TensorOperation):
    """AutoAugment with a learned policy (IMAGENET, CIFAR10 or SVHN): one of
    the policy's 25 sub-policies, each step with its probability and
    magnitude. Input: HWC uint8 RGB."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0) -> None:
        op = "AutoAugment"
        super().__init__(op, policy=choice(policy, AutoAugmentPolicy, op, "policy"),
                         interpolation=interp(interpolation, op), fill_value=check_fill(fill_value, op))


class RandAugment(TensorOperation):
    """num_ops random steps out of 14, each at magnitude `magnitude` of
    `num_magnitude_bins`. Input: HWC uint8 RGB."""

    def __init__(self, num_ops: int = 2, magnitude: int = 9, num_magnitude_bins: int = 31,
                 interpolation=Inter.NEAREST, fill_value=0) -> None:
        op = "RandAugment"
        num_ops = check_int(num_ops, op, "num_ops", 0, 1000)
        bins = check_int(num_magnitude_bins, op, "num_magnitude_bins", 2, 100000)
        magnitude = check_int(magnitude, op, "magnitude", 0)
        if magnitude >= bins:
            raise ValueError("%s: magnitude must be smaller than num_magnitude_bins (%d), got %d" % (op, bins,
                                                                                                  magnitude))
        super().__init__(op, num_ops=num_ops, magnitude=magnitude, num_magnitude_bins=bins,
                         interpolation=interp(interpolation, op), fill_value=check_fill(fill_value, op))


class TrivialAugmentWide(TensorOperation):
    """One step drawn out of RandAugment's 14 at a magnitude bin drawn out
    of `num_magnitude_bins` (TrivialAugmentWide's wider ranges), signed
    steps negated at random. Input: HWC uint8 RGB."""

    def __init__(self, num_magnitude_bins: int = 31, interpolation=Inter.NEAREST, fill_value=0) -> None:
        op = "TrivialAugmentWide"
        super().__init__(op, num_magnitude_bins=check_int(num_magnitude_bins, op, "num_magnitude_bins", 2, 16777216),
                         interpolation=interp(interpolation, op), fill_value=check_fill(fill_value, op))


class MixUpBatch(TensorOperation):
    """MixUp on a batch: map it after batch with input_columns=[images,
    labels] (labels one-hot). `op(images, labels)` returns (images, labels)."""

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__("MixUpBatch", alpha=check_float(alpha, "MixUpBatch", "alpha", 0.0, lo_open=True))


class CutMixBatch(TensorOperation):
    """CutMix on a batch of NHWC or NCHW images and one-hot labels: map it
    after batch with input_columns=[images, labels]."""

    def __init__(self, image_batch_format, alpha: float = 1.0, prob: float = 1.0) -> None:
        op = "CutMixBatch"
        super().__init__(op, image_batch_format=choice(image_batch_format, ImageBatchFormat, op,
                                                       "image_batch_format"),
                         alpha=check_float(alpha, op, "alpha", 0.0, lo_open=True), prob=check_prob(prob, op))


class MixUp(TensorOperation):
    """MindSpore's vision.MixUp: map it after batch(batch_size) with
    input_columns=[images, labels] (labels one-hot [N, K]). Image i becomes
    lam_i * image[i] + (1 - lam_i) * image[i + 1] (the last mixes with the
    first), lam_i ~ Beta(alpha, alpha) per image; labels likewise; both
    come out float64. `op(images, labels)` returns (images, labels).

    is_single=False (mix each batch with the previous batch's output) is
    not supported: it is a stateful op whose result depends on the order in
    which batches are mapped; it raises ValueError."""

    def __init__(self, batch_size: int, alpha: float, is_single: bool = True) -> None:
        op = "MixUp"
        if not isinstance(is_single, bool):
            raise TypeError("%s: is_single must be a bool, got %r" % (op, is_single))
        batch_size = check_int(batch_size, op, "batch_size", 1, 16777216)
        alpha = check_float(alpha, op, "alpha", 0.0, lo_open=True)
        if not is_single:
            raise ValueError("%s: is_single=False (mixing with the previous batch's output) is not supported: "
                             "it depends on the order batches are mapped in; use is_single=True" % op)
        super().__init__(op, batch_size=batch_size, alpha=alpha)
