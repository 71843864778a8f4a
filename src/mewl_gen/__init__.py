"""mewl-gen: few-shot grounded-language benchmarks rendered with Blender Cycles."""
