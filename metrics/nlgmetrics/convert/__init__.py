"""Converters from the authors' original checkpoints to standard transformers folders.

``nlgmetrics convert ctc ...`` turns a ctc_score ``.ckpt`` (the CTC Google Drive release) into a D or R
aligner folder, ``nlgmetrics convert usr ...`` the three released USR folders into ``mlm``, ``dr_c`` and
``dr_f``; each output loads through the folder options (``aligner="D:<folder>"``, ``mlm=``, ``dr_c=``,
``dr_f=``) and is what ``python -m hub_models.publish`` uploads. torch is imported only when one runs.
"""
