"""The article-body profile's decision: which blocks of a page form its article body.

:func:`wps.article.body.article_body` runs trafilatura three ways, describes each candidate block
(:mod:`wps.article.blocks`) and keeps the blocks a small packaged tree model
(:mod:`wps.article.model`) judges part of the body. It is the ``article`` extractor of
:mod:`wps.text.extract`, which the packaged ``article`` profile selects.
"""
