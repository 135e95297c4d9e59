"""What chapters share: page parts (page), the theme (theme), figures (figures), live training
(live_loop)."""
