"""The Space widget: score one example with lettucedetect (Gradio 6).

    python metrics/lettucedetect/app.py [--config NAME] [--device cpu] [--host 0.0.0.0] [--port 7860]

Host and port default to Gradio's GRADIO_SERVER_NAME and GRADIO_SERVER_PORT; needs
`pip install "nlgmetrics[space]"`.
"""

from nlgmetrics.ui.widget import main

main("lettucedetect")
