"""The article-body profile's decision: which blocks of a page form its article body.

:func:`wps.article_body.body.article_body` runs trafilatura three ways, describes each candidate block
(:mod:`wps.article_body.blocks`) and keeps the blocks a small packaged tree model
(:mod:`wps.article_body.model`) judges part of the body. It is the ``article`` extractor of
:mod:`wps.text.extract`, which the packaged ``article`` profile selects.
"""
