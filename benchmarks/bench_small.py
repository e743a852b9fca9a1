"""The fixed cost of fits on small data (``compare.py --section small`` has the
comparison with scikit-learn): one ``max_depth=8`` fit of Adult as users have it
(26,048 rows, ordinal codes, string labels; skipped without the shared datasets), a
grid search over 18 settings x 5 folds on it, forests of 100 trees on it, and fits of
``n x 10`` generated rows."""

import fastdt

from .common import classification, set_threads, warm_up


class SmallFit:
    params = [250, 1000, 5000, 20000]
    param_names = ["rows"]
    number = 5
    repeat = (3, 10, 20.0)

    def setup(self, rows):
        set_threads()
        warm_up()
        self.X, self.y = classification(rows, n_features=10)

    def time_fit(self, rows):
        fastdt.fit(self.X, self.y, max_depth=8)
        for forest in (fastdt.RandomForestClassifier, fastdt.ExtraTreesClassifier):
            forest(2, random_state=0).fit(self.X[:500], self.y[:500])  # kernels loaded


class Adult:
    number = 1
    repeat = (3, 10, 60.0)
    timeout = 600

    def setup(self):
        from .compare_small import adult_as_it_comes

        set_threads()
        warm_up()
        try:
            self.X, self.y = adult_as_it_comes()
        except FileNotFoundError:
            raise NotImplementedError("the shared datasets are not found")  # asv: skip
        fastdt.fit(self.X, self.y, max_depth=8)
        for forest in (fastdt.RandomForestClassifier, fastdt.ExtraTreesClassifier):
            forest(2, random_state=0).fit(self.X[:500], self.y[:500])  # kernels loaded

    def time_fit(self):
        fastdt.DecisionTreeClassifier(max_depth=8).fit(self.X, self.y)

    def time_grid_search(self):
        from sklearn.model_selection import GridSearchCV

        from fastdt._memo import MAX_BYTES

        from .compare_small import SETTINGS

        fastdt.set_prepare_cache(MAX_BYTES)  # on, as by default: each fold's refits
        GridSearchCV(fastdt.DecisionTreeClassifier(), SETTINGS, cv=5).fit(self.X, self.y)

    def time_random_forest(self):
        fastdt.RandomForestClassifier(100, random_state=0).fit(self.X, self.y)

    def time_extra_trees(self):
        fastdt.ExtraTreesClassifier(100, random_state=0).fit(self.X, self.y)
