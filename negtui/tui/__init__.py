"""The Textual app: play any seat, let lenses autoplay the rest, replay records, ask for the welfare optimum."""
