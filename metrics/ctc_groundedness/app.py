"""The Space widget: score one example with ctc_groundedness (Gradio 6)."""

from nlgmetrics.ui.widget import launch_widget

launch_widget("ctc_groundedness")
