"""What chapters share: page parts (page), the theme (theme), figures (figures), the streaming
training curve (streaming), live training (live_loop)."""
