"""WebSAM-Adapter (Ren et al., ECIR 2024) on segment-anything's image encoder: ``nn.Module`` s only.

algorithms.md §2.1 pins the architecture: SAM's ViT encoder frozen; patch embedding tune (PET,
Linear E → E/μ on the frozen patch embeddings) plus edge components tune (ECT, Sobel magnitude
of the grey input cut into 16² patches by a Conv2d to E/μ); per block k a Linear(E/μ → E/μ)
``tune_k``, GELU and one **shared** Linear(E/μ → E) ``up``, added to the tokens entering block k;
SAM's mask decoder fine-tuned and prompted with nothing (one page mask). For ViT-B (E = 768,
μ = 8) the adapter has 285 k parameters and the decoder 4.06 M: 4.34 M trainable.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

ADAPTER_PREFIX = "adapter."
DECODER_PREFIX = "mask_decoder."


class EdgeComponents(nn.Module):
    """Sobel gradient magnitude of the grey, de-normalised input image (values 0–1)."""

    def __init__(self, pixel_mean: torch.Tensor, pixel_std: torch.Tensor) -> None:
        super().__init__()
        sobel_x = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]])
        self.register_buffer("kernels", torch.stack([sobel_x, sobel_x.T])[:, None],
                             persistent=False)
        self.register_buffer("mean", pixel_mean.detach().clone().view(1, 3, 1, 1),
                             persistent=False)
        self.register_buffer("std", pixel_std.detach().clone().view(1, 3, 1, 1),
                             persistent=False)
        self.register_buffer("grey", torch.tensor([0.299, 0.587, 0.114]).view(1, 3, 1, 1),
                             persistent=False)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        pixels = (images * self.std + self.mean) / 255.0
        grey = (pixels * self.grey).sum(dim=1, keepdim=True)
        gradients = F.conv2d(grey, self.kernels.to(grey.dtype), padding=1)
        return gradients.pow(2).sum(dim=1, keepdim=True).add(1e-12).sqrt()


class WebSamAdapter(nn.Module):
    """PET + ECT → per-block prompts F_k = up(GELU(tune_k(F_pet + F_ect)))."""

    def __init__(self, embed_dim: int, depth: int, patch_size: int, mu: int = 8) -> None:
        super().__init__()
        width = embed_dim // mu
        self.patch_tune = nn.Linear(embed_dim, width)
        self.edge_tune = nn.Conv2d(1, width, kernel_size=patch_size, stride=patch_size)
        self.block_tunes = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.up = nn.Linear(width, embed_dim)

    def forward(self, patch_embeddings: torch.Tensor, edges: torch.Tensor) -> list[torch.Tensor]:
        """``patch_embeddings`` B×h×w×E, ``edges`` B×1×H×W → one B×h×w×E prompt per block."""
        merged = self.patch_tune(patch_embeddings) + self.edge_tune(edges).permute(0, 2, 3, 1)
        return [self.up(F.gelu(tune(merged))) for tune in self.block_tunes]


class WebSam(nn.Module):
    """SAM with the adapter: normalised 1024² images in, one page-mask logit map out."""

    def __init__(self, sam: Any, mu: int = 8) -> None:
        super().__init__()
        encoder = sam.image_encoder
        self.sam = sam
        self.edges = EdgeComponents(sam.pixel_mean, sam.pixel_std)
        self.adapter = WebSamAdapter(encoder.patch_embed.proj.out_channels, len(encoder.blocks),
                                     encoder.patch_embed.proj.kernel_size[0], mu)
        self.mu = mu
        for parameter in sam.parameters():
            parameter.requires_grad_(False)
        for parameter in sam.mask_decoder.parameters():
            parameter.requires_grad_(True)

    @property
    def image_size(self) -> int:
        return int(self.sam.image_encoder.img_size)

    def train(self, mode: bool = True) -> WebSam:
        """Only the trainable parts switch to training mode; the frozen encoder stays in eval."""
        super().train(mode)
        self.sam.image_encoder.eval()
        self.sam.prompt_encoder.eval()
        return self

    def preprocess(self, images: torch.Tensor) -> torch.Tensor:
        """B×3×S×S RGB 0–255 → normalised (SAM's pixel mean and std)."""
        return (images - self.sam.pixel_mean) / self.sam.pixel_std

    def embed(self, images: torch.Tensor) -> torch.Tensor:
        """Normalised images → B×C×h×w image embeddings (frozen encoder + adapter prompts)."""
        encoder = self.sam.image_encoder
        with torch.no_grad():
            patches = encoder.patch_embed(images)
        prompts = self.adapter(patches, self.edges(images))
        tokens = patches + encoder.pos_embed if encoder.pos_embed is not None else patches
        for block, prompt in zip(encoder.blocks, prompts):
            tokens = block(tokens + prompt)
        return encoder.neck(tokens.permute(0, 3, 1, 2))

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        """Normalised B×3×S×S images → B×1×S×S mask logits."""
        embeddings = self.embed(images)
        prompts = self.sam.prompt_encoder
        sparse, dense = prompts(points=None, boxes=None, masks=None)
        position = prompts.get_dense_pe()
        logits = [self.sam.mask_decoder(image_embeddings=embedding[None], image_pe=position,
                                        sparse_prompt_embeddings=sparse,
                                        dense_prompt_embeddings=dense,
                                        multimask_output=False)[0]
                  for embedding in embeddings]  # the decoder takes one image per call
        return F.interpolate(torch.cat(logits), size=images.shape[-2:], mode="bilinear",
                             align_corners=False)

    def trainable_state_dict(self) -> dict[str, torch.Tensor]:
        """The adapter's and the mask decoder's weights: all an adapter checkpoint holds."""
        return {name: tensor.detach().cpu().clone() for name, tensor in self.state_dict().items()
                if name.startswith(ADAPTER_PREFIX)
                or name.startswith("sam." + DECODER_PREFIX)}

    def load_trainable_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        expected = set(self.trainable_state_dict())
        if set(state) != expected:
            missing, unexpected = sorted(expected - set(state)), sorted(set(state) - expected)
            raise KeyError(f"missing {missing[:3]}, unexpected {unexpected[:3]}")
        self.load_state_dict(state, strict=False)


def trainable_parameter_count(model: nn.Module) -> int:
    return sum(parameter.numel() for parameter in model.parameters() if parameter.requires_grad)


def bce_iou_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Binary cross-entropy plus soft IoU loss (1 − Σpt / Σ(p + t − pt)), both differentiable."""
    logits = logits.float()
    bce = F.binary_cross_entropy_with_logits(logits, target)
    probability = torch.sigmoid(logits)
    overlap = (probability * target).sum(dim=(-2, -1))
    union = (probability + target - probability * target).sum(dim=(-2, -1))
    return bce + (1.0 - (overlap + 1.0) / (union + 1.0)).mean()
