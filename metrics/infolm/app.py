"""The Space widget: score one example with infolm (Gradio 6)."""

from nlgmetrics.ui.widget import launch_widget

launch_widget("infolm")
