"""What a rendered page shows, read from its tree and text: evidence shared by the steps."""
