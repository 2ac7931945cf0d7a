"""MindSpore's dataset callbacks: DSCallback, passed as map(...,
callbacks=[...]).

    class Count(DSCallback):
        def ds_epoch_end(self, ds_run_context):
            print(ds_run_context.cur_epoch_num, ds_run_context.cur_step_num_in_epoch)
    ds = ds.map(ops, input_columns="image", callbacks=Count())

The methods run on the consumer side (the thread iterating the dataset), in
order, with MindSpore's run context: cur_epoch_num (from 1),
cur_step_num_in_epoch and cur_step_num (from 1; 0 before the first step).
As in MindSpore's map, a step is one row through the map (one batch for a
map after batch()), ds_begin runs once before the first row, ds_epoch_begin
before an epoch's first row and ds_epoch_end after its last, and
ds_step_begin / ds_step_end run for steps 1, 1 + step_size, 1 + 2 *
step_size, ... of each epoch. MindSpore calls them from the map's thread as
rows enter it; here they run just before the batch holding those rows is
handed out, so a callback sees the same numbers in the same order, never
ahead of the data. Rows a filter after the map drops are not counted here.
An exception in a callback stops the iteration with it.

Thread safety: callbacks run on the iterating thread only.
"""

__all__ = ["DSCallback"]


class DSCallback:
    """Base class of dataset callbacks (mindspore.dataset.DSCallback).
    `step_size`: ds_step_begin / ds_step_end run every step_size steps."""

    def __init__(self, step_size: int = 1) -> None:
        if not isinstance(step_size, int) or isinstance(step_size, bool) or step_size < 1:
            raise ValueError("step_size must be an int >= 1, got %r" % (step_size,))
        self.step_size = step_size

    def ds_begin(self, ds_run_context) -> None:
        """Before the pipeline's first row."""

    def ds_epoch_begin(self, ds_run_context) -> None:
        """Before each epoch's first row."""

    def ds_epoch_end(self, ds_run_context) -> None:
        """After each epoch's last row."""

    def ds_step_begin(self, ds_run_context) -> None:
        """Before every step_size-th step (row, or batch after batch())."""

    def ds_step_end(self, ds_run_context) -> None:
        """After every step_size-th step."""


class RunContext:
    """MindSpore's ds_run_context: where the pipeline stands."""

    def __init__(self, cur_epoch_num=0, cur_step_num_in_epoch=0, cur_step_num=0):
        self.cur_epoch_num = cur_epoch_num
        self.cur_step_num_in_epoch = cur_step_num_in_epoch
        self.cur_step_num = cur_step_num

    def __repr__(self):
        return "RunContext(cur_epoch_num=%d, cur_step_num_in_epoch=%d, cur_step_num=%d)" % (
            self.cur_epoch_num, self.cur_step_num_in_epoch, self.cur_step_num)


def callback_list(callbacks):
    """map's `callbacks` (None, one DSCallback or a list) as a list."""
    if callbacks is None:
        return []
    if isinstance(callbacks, DSCallback):
        return [callbacks]
    if isinstance(callbacks, (list, tuple)) and all(isinstance(c, DSCallback) for c in callbacks):
        return list(callbacks)
    raise TypeError("callbacks must be a DSCallback or a list of them (mindrecord.DSCallback), got %r"
                    % (callbacks,))


class CallbackRunner:
    """Calls a dataset's callbacks as an iterator hands out its items.
    `callbacks`: (DSCallback, steps are rows) pairs, in map order."""

    def __init__(self, callbacks):
        self.cbs = callbacks
        self.begun = False
        self.epoch = None  # the epoch being handed out (from 1), None between epochs
        self.steps = {}    # id(callback) -> (steps in epoch, total steps)

    def _ctx(self, cb):
        in_epoch, total = self.steps.get(id(cb), (0, 0))
        return RunContext(self.epoch or 0, in_epoch, total)

    def item(self, epoch, rows):
        """Before handing out an item of `rows` rows of epoch `epoch` (from 0)."""
        if not self.begun:
            self.begun = True
            for cb, _ in self.cbs:
                cb.ds_begin(RunContext())
        if self.epoch is None:
            self.epoch = epoch + 1
            for cb, _ in self.cbs:
                in_epoch, total = self.steps.get(id(cb), (0, 0))
                self.steps[id(cb)] = (0, total)
                cb.ds_epoch_begin(self._ctx(cb))
        for cb, per_row in self.cbs:
            for _ in range(rows if per_row else 1):
                in_epoch, total = self.steps[id(cb)]
                self.steps[id(cb)] = (in_epoch + 1, total + 1)
                if in_epoch % cb.step_size == 0:
                    ctx = self._ctx(cb)
                    cb.ds_step_begin(ctx)
                    cb.ds_step_end(ctx)

    def epoch_end(self, epoch):
        """At the end of epoch `epoch` (from 0): after its last item."""
        if not self.cbs:
            return
        if self.epoch is None:  # an epoch without items still begins and ends
            self.item(epoch, 0)
        for cb, _ in self.cbs:
            cb.ds_epoch_end(self._ctx(cb))
        self.epoch = None
