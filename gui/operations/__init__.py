"""The user operations, one small wrapper each (issue 27): each runs its engine operation
(engine/ops) on the writer lane through `run.run_op`, which says its success and its failure in one
place and passes who asked as the initiator. The views, the panel and the window only call them;
undo_restore.py also asks the question an undo needs first, from wherever the undo is started."""
